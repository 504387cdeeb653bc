//! Finding a table's columns by name, and listing them in an error.

use super::errors::FieldError;

/// Index of the column named `name` (case-insensitive, surrounding spaces and a BOM ignored).
pub(crate) fn find_column(header: &[String], name: &str) -> Option<usize> {
    header.iter().position(|h| {
        h.trim_start_matches('\u{feff}')
            .trim()
            .eq_ignore_ascii_case(name)
    })
}

/// The error of a missing column `field`: `missing column{what}header has: ...)`, `what`
/// saying what the format needs and opening the parenthesis that lists the header.
pub(crate) fn missing_column(header: &[String], field: &str, what: &str) -> FieldError {
    let m = format!("missing column{what}header has: {})", header_list(header));
    FieldError::new(field, m)
}

/// About how many characters of a header [`header_list`] shows.
const HEADER_LIST_CHARS: usize = 200;

/// The header's column names for an error message, joined by `, `: in full when that is at
/// most about 200 characters, else the names that fit, then `…` and how many more columns
/// there are (a header of thousands of columns, or the first line of a file that is not a
/// table, would otherwise fill the screen with one line).
pub(crate) fn header_list(header: &[String]) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for (i, name) in header.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let len = name.chars().count();
        if chars + sep.len() + len <= HEADER_LIST_CHARS {
            out.push_str(sep);
            out.push_str(name);
            chars += sep.len() + len;
            continue;
        }
        let more = if i == 0 {
            // A first name longer than the whole listing: its beginning.
            out.extend(name.chars().take(HEADER_LIST_CHARS));
            out.push('…');
            header.len() - 1
        } else {
            out.push_str(", …");
            header.len() - i
        };
        match more {
            0 => {}
            1 => out.push_str(" (1 more column)"),
            n => out.push_str(&format!(" ({n} more columns)")),
        }
        break;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize, width: usize) -> Vec<String> {
        (0..n).map(|k| format!("{k:0width$}")).collect()
    }

    #[test]
    fn a_short_header_is_listed_whole_and_a_long_one_is_cut_with_a_count() {
        let short = names(3, 1);
        assert_eq!(header_list(&short), "0, 1, 2");
        assert_eq!(header_list(&[]), "");
        // 100 names of 8 characters: 20 fit in 200 characters (8 + 19 * 10 = 198).
        let long = header_list(&names(100, 8));
        assert!(long.starts_with("00000000, 00000001, "), "{long}");
        assert!(long.ends_with(", 00000019, … (80 more columns)"), "{long}");
        assert!(long.chars().count() < 230, "{long}");
        // Exactly the limit: whole.
        let exact = vec!["x".repeat(HEADER_LIST_CHARS)];
        assert_eq!(header_list(&exact), exact[0]);
        // A first name longer than the limit: its beginning.
        let mut wide = vec!["é".repeat(500)];
        wide.push("b".into());
        let w = header_list(&wide);
        assert_eq!(
            w,
            format!("{}… (1 more column)", "é".repeat(HEADER_LIST_CHARS))
        );
        assert_eq!(
            header_list(&wide[..1]),
            format!("{}…", "é".repeat(HEADER_LIST_CHARS))
        );
    }
}
