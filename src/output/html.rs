//! The one HTML escaper of the site and the report: askama applies it to every `{{ }}` of an
//! `.html` template (`askama.toml`).
//!
//! Markup's characters become the entities `&amp; &lt; &gt; &quot; &#39;`, and the control
//! characters HTML does not allow in a page (see [`html_control`]) become U+FFFD, the
//! replacement character; everything else is written as it is.

use std::borrow::Cow;
use std::fmt;

/// A character HTML does not allow in a page as it is (a control character other than tab,
/// line feed, form feed and carriage return); written as U+FFFD, the replacement character.
pub fn html_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\x0c' | '\r')
}

/// Text with the characters HTML does not allow replaced (see [`html_control`]), for markup
/// whose own escaping was done elsewhere (the SVG of plotters).
pub fn html_text(s: &str) -> Cow<'_, str> {
    if s.chars().any(html_control) {
        s.chars()
            .map(|c| if html_control(c) { '\u{fffd}' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// The escaper askama's HTML templates use (named in `askama.toml`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Html;

impl askama::filters::Escaper for Html {
    fn write_escaped_str<W: fmt::Write>(&self, mut f: W, s: &str) -> fmt::Result {
        let b = s.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < b.len() {
            // (Byte by byte: every character to replace is ASCII but the C1 controls, U+0080
            // to U+009F, which are 0xC2 and a byte 0x80 to 0x9F.)
            let (entity, len) = match b[i] {
                b'&' => ("&amp;", 1),
                b'<' => ("&lt;", 1),
                b'>' => ("&gt;", 1),
                b'"' => ("&quot;", 1),
                b'\'' => ("&#39;", 1),
                b'\t' | b'\n' | b'\x0c' | b'\r' => {
                    i += 1;
                    continue;
                }
                0x00..=0x1f | 0x7f => ("\u{fffd}", 1),
                0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => ("\u{fffd}", 2),
                _ => {
                    i += 1;
                    continue;
                }
            };
            f.write_str(&s[start..i])?;
            f.write_str(entity)?;
            i += len;
            start = i;
        }
        f.write_str(&s[start..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` escaped for HTML text and attribute values (see [`Html`]).
    fn escape(s: &str) -> String {
        let mut out = String::new();
        let _ = askama::filters::Escaper::write_escaped_str(&Html, &mut out, s);
        out
    }

    /// Markup's characters as entities, the control characters HTML refuses (C0 but tab and
    /// line ends, DEL, C1) as U+FFFD, the rest as it is (multi-byte characters beside them
    /// included).
    #[test]
    fn escaped_text_has_no_markup_and_no_control_characters() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
        assert_eq!(
            escape("é\x01<ü\x1b\x7f\u{9f}>\tö"),
            "é\u{fffd}&lt;ü\u{fffd}\u{fffd}\u{fffd}&gt;\tö"
        );
        assert_eq!(
            escape("a\x01b\x1bc\x7fd\u{85}e\tf\ng\x0ch\ri"),
            "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e\tf\ng\x0ch\ri"
        );
        assert_eq!(html_text("<\x01>"), "<\u{fffd}>");
    }
}
