//! Times in the engine: Unix seconds (UTC), their range and their RFC 3339 form.

use chrono::{DateTime, NaiveDate};

/// The earliest and latest Unix seconds a history holds: the years 0 to 9999, which every
/// output can print as a date.
pub const TIME_RANGE: (i64, i64) = (-62_167_219_200, 253_402_300_799);

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

/// The number of the UTC day holding time `t` (days since 1970-01-01; consecutive days have
/// consecutive numbers).
pub fn day_number(t: i64) -> i64 {
    t.div_euclid(86_400)
}

/// The number of the ISO week (Monday to Sunday, UTC) holding time `t`.
pub fn week_number(t: i64) -> i64 {
    // 1970-01-01 was a Thursday: shift so that weeks start on Monday.
    (day_number(t) + 3).div_euclid(7)
}

/// The number of the UTC month holding time `t` (year * 12 + month - 1; the day's number for
/// a time chrono cannot represent).
pub fn month_number(t: i64) -> i64 {
    use chrono::{Datelike, TimeZone, Utc};
    Utc.timestamp_opt(t, 0).single().map_or(day_number(t), |d| {
        i64::from(d.year()) * 12 + i64::from(d.month0())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_time(1_633_432_140), "2021-10-05T11:09:00Z");
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(-1), "1969-12-31T23:59:59Z");
        assert_eq!(format_time(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_time(TIME_RANGE.0), "0000-01-01T00:00:00Z");
        assert_eq!(format_time(TIME_RANGE.1), "9999-12-31T23:59:59Z");
    }
}
