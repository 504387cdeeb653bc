//! Time stamps of the input formats, all turned into Unix seconds (UTC).
//!
//! Accepted: RFC 3339 (`2021-10-05T11:09:00Z`, `...+02:00`, fractions of a second), `YYYY-MM-DD`,
//! `YYYY-MM-DD HH:MM[:SS[.fff]]` (UTC; a `T` instead of the space, a trailing `Z` or ` UTC` are
//! accepted too), `YYYY.MM.DD` (PGN; `??` for an unknown month or day means the first one) and
//! integer Unix seconds. Fractions of a second are dropped: equal seconds keep input order.

use chrono::{DateTime, NaiveDate};

/// What the error message says is accepted.
pub const ACCEPTED: &str =
    "expected RFC 3339, YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS], YYYY.MM.DD or integer Unix seconds";

/// Parses one time stamp.
pub fn parse_time(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let bad = || format!("malformed time `{s}` ({ACCEPTED})");
    if s.is_empty() {
        return Err(format!("empty time ({ACCEPTED})"));
    }
    let b = s.as_bytes();
    if b.iter().all(|c| c.is_ascii_digit())
        || (b[0] == b'-' && b.len() > 1 && b[1..].iter().all(u8::is_ascii_digit))
    {
        // Plain integers of 4 digits would be ambiguous with a year; treat every integer as
        // Unix seconds, as documented.
        // Bounded to the years 0 to 9999, which every output can print as a date.
        return s
            .parse::<i64>()
            .ok()
            .filter(|t| (-62_167_219_200..=253_402_300_799).contains(t))
            .ok_or_else(|| format!("time `{s}` is outside the years 0 to 9999 ({ACCEPTED})"));
    }
    if b.len() >= 10 && (b[4] == b'-' || b[4] == b'.') && b[7] == b[4] {
        let pgn = b[4] == b'.';
        let year = digits(&b[0..4]).ok_or_else(bad)?;
        let (month, day) = if pgn {
            let m = if &b[5..7] == b"??" {
                Some(1)
            } else {
                digits(&b[5..7])
            };
            let d = if &b[8..10] == b"??" {
                Some(1)
            } else {
                digits(&b[8..10])
            };
            (m.ok_or_else(bad)?, d.ok_or_else(bad)?)
        } else {
            (
                digits(&b[5..7]).ok_or_else(bad)?,
                digits(&b[8..10]).ok_or_else(bad)?,
            )
        };
        let date = NaiveDate::from_ymd_opt(year as i32, month, day).ok_or_else(bad)?;
        let days = date
            .signed_duration_since(NaiveDate::from_ymd_opt(1970, 1, 1).unwrap())
            .num_days();
        let rest = &s[10..];
        if rest.is_empty() {
            return Ok(days * 86_400);
        }
        if pgn {
            return Err(bad());
        }
        if let Some(secs) = clock(rest) {
            return Ok(days * 86_400 + secs);
        }
        // Offsets other than Z: let chrono read the full RFC 3339 form.
        return DateTime::parse_from_rfc3339(s)
            .map(|t| t.timestamp())
            .map_err(|_| bad());
    }
    Err(bad())
}

fn digits(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u32;
    }
    Some(v)
}

/// ` HH:MM[:SS[.fff]][Z| UTC]` or the same after `T`: seconds since midnight (UTC only).
fn clock(rest: &str) -> Option<i64> {
    let b = rest.as_bytes();
    if !(b[0] == b' ' || b[0] == b'T' || b[0] == b't') || b.len() < 6 || b[3] != b':' {
        return None;
    }
    let h = digits(&b[1..3])?;
    let m = digits(&b[4..6])?;
    let mut i = 6;
    let mut sec = 0;
    if b.len() >= 9 && b[6] == b':' {
        sec = digits(&b[7..9])?;
        i = 9;
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
    }
    let zone = &rest[i..];
    if !(zone.is_empty() || zone == "Z" || zone == "z" || zone == " UTC" || zone == "+00:00") {
        return None;
    }
    // 24:00:00 and leap seconds are refused rather than guessed at.
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    Some((h * 3600 + m * 60 + sec) as i64)
}

/// Formats Unix seconds as RFC 3339 in UTC (`2021-10-05T11:09:00Z`).
pub fn format_time(t: i64) -> String {
    let mut s = String::with_capacity(20);
    push_time(&mut s, t);
    s
}

/// Appends Unix seconds as RFC 3339 in UTC; written digit by digit because it runs once per
/// contest of the history output.
pub fn push_time(out: &mut String, t: i64) {
    use chrono::Datelike;
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400) as u32;
    let date = i32::try_from(days + 719_163)
        .ok()
        .and_then(NaiveDate::from_num_days_from_ce_opt);
    match date {
        Some(d) if (0..=9999).contains(&d.year()) => {
            push_digits(out, d.year() as u32, 4);
            for (sep, v) in [
                ('-', d.month()),
                ('-', d.day()),
                ('T', secs / 3600),
                (':', secs / 60 % 60),
                (':', secs % 60),
            ] {
                out.push(sep);
                push_digits(out, v, 2);
            }
            out.push('Z');
        }
        _ => match DateTime::from_timestamp(t, 0) {
            Some(d) => out.push_str(&d.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
            None => out.push_str(&t.to_string()),
        },
    }
}

fn push_digits(out: &mut String, v: u32, width: u32) {
    for k in (0..width).rev() {
        out.push((b'0' + (v / 10u32.pow(k) % 10) as u8) as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_times_stay_within_printable_years() {
        assert_eq!(parse_time("253402300799"), Ok(253_402_300_799));
        assert_eq!(format_time(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(parse_time("-62167219200"), Ok(-62_167_219_200));
        for t in ["253402300800", "9223372036854775807", "-62167219201"] {
            assert!(
                parse_time(t).unwrap_err().contains("years 0 to 9999"),
                "{t}"
            );
        }
    }

    #[test]
    fn every_documented_form() {
        assert_eq!(parse_time("2021-10-05T11:09:00Z"), Ok(1_633_432_140));
        assert_eq!(parse_time("2021-10-05T13:09:00+02:00"), Ok(1_633_432_140));
        assert_eq!(parse_time("2021-10-05 11:09:00"), Ok(1_633_432_140));
        assert_eq!(parse_time("2021-10-05 11:09"), Ok(1_633_432_140));
        assert_eq!(parse_time("2021-10-05T11:09:00.250Z"), Ok(1_633_432_140));
        assert_eq!(parse_time("2021-10-05"), Ok(1_633_392_000));
        assert_eq!(parse_time("2021.10.05"), Ok(1_633_392_000));
        assert_eq!(parse_time("2021.10.??"), Ok(1_633_046_400));
        assert_eq!(parse_time("1266588000"), Ok(1_266_588_000));
        assert_eq!(parse_time("-86400"), Ok(-86_400));
        assert_eq!(parse_time(" 1970-01-02 "), Ok(86_400));
    }

    #[test]
    fn malformed_times_are_refused() {
        for bad in [
            "",
            "?",
            "2021-13-01",
            "2021-02-30",
            "2021-10-05T25:00:00Z",
            "05/10/2021",
            "2021-10-05x",
            "2021.??.??x",
            "yesterday",
            "2021-10-05 11:9",
            "????.??.??",
        ] {
            assert!(parse_time(bad).is_err(), "{bad} accepted");
        }
        assert!(
            parse_time("2021-1x-05")
                .unwrap_err()
                .contains("`2021-1x-05`")
        );
    }

    #[test]
    fn formats_back() {
        assert_eq!(format_time(1_633_432_140), "2021-10-05T11:09:00Z");
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(-1), "1969-12-31T23:59:59Z");
        assert_eq!(format_time(951_782_400), "2000-02-29T00:00:00Z");
        for t in [
            -86_400 * 365 * 300,
            -1,
            0,
            1_266_588_000,
            4_102_444_799,
            253_402_300_799,
        ] {
            assert_eq!(parse_time(&format_time(t)), Ok(t), "{t}");
        }
    }
}
