//! Text shared by the writers: CSV fields, numbers in their shortest exact form, names cut
//! to a width.

use std::fmt;

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

/// A player's name as CSV fields: a pooled one (`--pool-by`) as its name and its pool.
pub(crate) fn csv_name(name: &str, out: &mut String) {
    let (name, pool) = crate::history::split_pool(name);
    csv_field(name, out);
    if let Some(pool) = pool {
        out.push(',');
        csv_field(pool, out);
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

/// A rating (or any rating-scaled number) for display: no decimals from 100 up, else three
/// significant digits (at most six decimals); "–" when not finite.
pub(crate) struct Rating(pub f64);

/// Decimals shown for a rating of this size.
pub(crate) fn rating_decimals(v: f64) -> usize {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 || !a.is_finite() {
        0
    } else {
        (2 - a.log10().floor() as i64).clamp(0, 6) as usize
    }
}

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if !v.is_finite() {
            return f.write_str("–");
        }
        let mut d = rating_decimals(v);
        let Some(mut units) = scaled(v, d) else {
            // Beyond 2^53: no decimals (d is 0 from 100 up), and every digit exact.
            return write!(f, "{v:.0}");
        };
        // Rounding may carry into one more digit (99.96 → 100.0): then the decimals of the
        // new size (|v| < 100 here, so it fits).
        if d > 0 && units >= 1000 {
            d -= 1;
            units = scaled(v, d).unwrap_or(0);
        }
        if units == 0 {
            // Never "-0".
            return f.write_str("0");
        }
        if v < 0.0 {
            f.write_str("-")?;
        }
        Fixed { units, d }.fmt(f)
    }
}

/// Powers of ten up to the most decimals shown.
const POW10: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/// |v| rounded (half away from zero) to `d` decimals, as a count of 10^-d, when that fits an
/// f64's integers exactly.
pub(crate) fn scaled(v: f64, d: usize) -> Option<u64> {
    let units = (v.abs() * POW10[d] as f64).round();
    (units < 9.0e15).then_some(units as u64)
}

/// A non-negative number of `units` of 10^-d, written with `d` decimals (integer arithmetic:
/// float formatting with a precision is several times slower, and pages have many numbers).
pub(crate) struct Fixed {
    pub(crate) units: u64,
    pub(crate) d: usize,
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.d;
        if d == 0 {
            write!(f, "{}", self.units)
        } else {
            let p = POW10[d];
            write!(f, "{}.{:0d$}", self.units / p, self.units % p)
        }
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
