//! Finding a table's columns by name.

/// Index of the column named `name` (case-insensitive, surrounding spaces and a BOM ignored).
pub(crate) fn find_column(header: &[String], name: &str) -> Option<usize> {
    header.iter().position(|h| {
        h.trim_start_matches('\u{feff}')
            .trim()
            .eq_ignore_ascii_case(name)
    })
}
