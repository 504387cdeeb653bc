//! Text shared by the writers: CSV fields, numbers in their shortest exact form, names cut
//! to a width.

/// A CSV field, quoted when it needs to be.
pub(crate) fn csv_field(s: &str, out: &mut String) {
    // Quoted when a reader could split or trim it: separators, quotes, line breaks, and
    // whitespace at either end (names are kept exactly as given).
    if s.contains([',', '"', '\n', '\r'])
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
    {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Shortest round-trip form (ryu); empty for NaN (no value).
pub(crate) fn number(v: f64, out: &mut String) {
    if v.is_finite() {
        let mut b = ryu::Buffer::new();
        let s = b.format_finite(v);
        out.push_str(s.strip_suffix(".0").unwrap_or(s));
    }
}

/// Shortens a name to at most `max` characters, an ellipsis marking the cut.
pub(crate) fn shorten(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_numbers_and_names() {
        let mut s = String::new();
        csv_field("a,b", &mut s);
        csv_field("say \"hi\"", &mut s);
        csv_field("Foo\t", &mut s);
        csv_field("plain", &mut s);
        assert_eq!(s, "\"a,b\"\"say \"\"hi\"\"\"\"Foo\t\"plain");
        let mut n = String::new();
        number(1500.0, &mut n);
        n.push(' ');
        number(0.1 + 0.2, &mut n);
        n.push(' ');
        number(f64::NAN, &mut n);
        assert_eq!(n, "1500 0.30000000000000004 ");
        assert_eq!(shorten("Magnus Carlsen", 14), "Magnus Carlsen");
        assert_eq!(shorten("Magnus Carlsen", 7), "Magnus…");
        assert_eq!(shorten("Ærøskøbing", 4), "Ærø…");
    }
}
