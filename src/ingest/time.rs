//! Time stamps of the input formats, all turned into Unix seconds (UTC).
//!
//! Text forms: RFC 3339 (`2021-10-05T11:09:00Z`, `...+02:00`, fractions of a second),
//! `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fff]]` (UTC; a `T` instead of the space, a trailing `Z`
//! or ` UTC` are accepted too) and `YYYY.MM.DD` (PGN; `??` for an unknown month or day means the
//! first one). Fractions of a second are dropped: equal seconds keep input order. A leap second
//! (`23:59:60`, UTC) is read as 23:59:59 of its day: Unix time has no leap seconds, and this
//! keeps the instant on its day and after the second it follows.
//!
//! Integers are either `YYYYMMDD` dates (Sackmann's tennis files, many sports exports) or Unix
//! seconds (or milliseconds), and nothing in one value tells which: `20230102` is 2 January
//! 2023 or 1970-08-23T03:28:22Z. [`TimeFormat`] says how to read a column; under `auto` (the
//! default) a column's integers are read the way its first integer reads (an 8-digit valid
//! date makes it a column of dates, anything else a column of seconds), and a later integer that
//! reads the other way only is refused, with both readings and the flag that settles it. How
//! the column was read is reported ([`TimeParser::reading`]), so it is never a silent choice.

use chrono::format::{Item, StrftimeItems};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Timelike};
use std::fmt;
use std::str::FromStr;

/// What the error message says is accepted in `auto`.
pub const ACCEPTED: &str = "expected RFC 3339, YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS], YYYY.MM.DD, \
     YYYYMMDD or integer Unix seconds; --time-format names another form";

pub use rate_batch_core::time::{TIME_RANGE, format_time, push_time};

/// How the time column of a CSV or Parquet input is written (`--time-format`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TimeFormat {
    /// Any text form above, and integers as the column's first integer reads.
    #[default]
    Auto,
    /// RFC 3339 date-times only (with a time and a zone).
    Rfc3339,
    /// Dates only: `YYYY-MM-DD` or `YYYY.MM.DD`.
    Date,
    /// 8-digit dates `YYYYMMDD`.
    Yyyymmdd,
    /// Integer Unix seconds.
    Unix,
    /// Integer Unix milliseconds.
    UnixMs,
    /// A chrono strftime pattern (`%d/%m/%Y %H:%M`); without a zone the time is UTC.
    Strftime(String),
}

/// The formats `--time-format` names by a word.
const NAMED: [(&str, TimeFormat); 6] = [
    ("auto", TimeFormat::Auto),
    ("rfc3339", TimeFormat::Rfc3339),
    ("date", TimeFormat::Date),
    ("yyyymmdd", TimeFormat::Yyyymmdd),
    ("unix", TimeFormat::Unix),
    ("unix-ms", TimeFormat::UnixMs),
];

impl FromStr for TimeFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some((_, f)) = NAMED.iter().find(|(name, _)| *name == s) {
            return Ok(f.clone());
        }
        if !s.contains('%') {
            return Err(format!(
                "--time-format `{s}`: expected auto, rfc3339, date, yyyymmdd, unix, unix-ms or a \
                 strftime pattern such as '%d/%m/%Y'"
            ));
        }
        if StrftimeItems::new(s).any(|i| matches!(i, Item::Error)) {
            return Err(format!(
                "--time-format `{s}` is not a valid strftime pattern"
            ));
        }
        Ok(TimeFormat::Strftime(s.to_string()))
    }
}

impl fmt::Display for TimeFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeFormat::Strftime(p) => f.write_str(p),
            named => {
                let (name, _) = NAMED.iter().find(|(_, g)| g == named).expect("named");
                f.write_str(name)
            }
        }
    }
}

/// How `auto` reads a column's integers, settled by the first one.
#[derive(Clone, Debug, Default, PartialEq)]
enum Integers {
    #[default]
    Unseen,
    /// `YYYYMMDD` dates; the first such value.
    Dates(String),
    /// Unix seconds; the first such value.
    Seconds(String),
}

/// Reads one time column: the format, and under `auto` how the column's integers read.
#[derive(Clone, Debug, Default)]
pub struct TimeParser {
    format: TimeFormat,
    integers: Integers,
    text_seen: bool,
    /// The last value read and its time: the rows of a column often repeat one time (a day's
    /// games, a contest's standings), which is then parsed once. A value that read once reads
    /// the same again (the column's reading of integers is settled by its first one), so the
    /// cache changes no result.
    last: Option<(String, i64)>,
}

impl TimeParser {
    /// A parser for one column.
    pub fn new(format: TimeFormat) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// How the column was read, for `metrics.json` and the run's summary.
    pub fn reading(&self) -> String {
        match &self.format {
            TimeFormat::Auto => {
                let ints = match &self.integers {
                    Integers::Unseen => return "auto: text dates and times".to_string(),
                    Integers::Dates(first) => format!("YYYYMMDD dates (the first: {first})"),
                    Integers::Seconds(first) => format!("Unix seconds (the first: {first})"),
                };
                let text = if self.text_seen {
                    "text dates and times, "
                } else {
                    ""
                };
                format!("auto: {text}integers as {ints}")
            }
            other => other.to_string(),
        }
    }

    /// Parses one time stamp of the column.
    pub fn parse(&mut self, raw: &str) -> Result<i64, String> {
        let s = raw.trim();
        if let Some((text, t)) = &self.last
            && text == s
        {
            return Ok(*t);
        }
        let t = self.parse_new(s)?;
        let (text, time) = self.last.get_or_insert_default();
        text.clear();
        text.push_str(s);
        *time = t;
        Ok(t)
    }

    /// [`parse`](Self::parse) of a trimmed value not in the cache.
    fn parse_new(&mut self, s: &str) -> Result<i64, String> {
        if s.is_empty() {
            return Err(format!("empty time ({})", self.expected()));
        }
        match &self.format {
            TimeFormat::Auto => match (integer(s), decimal_seconds(s)) {
                (Some(v), _) => self.auto_integer(s, v, false),
                (None, Some(v)) => self.auto_integer(s, v, true),
                (None, None) => {
                    self.text_seen = true;
                    parse_text(s)
                }
            },
            TimeFormat::Rfc3339 => {
                let b = s.as_bytes();
                let has_clock = b.len() >= 19 && matches!(b[10], b'T' | b't' | b' ');
                let zoned = s.ends_with(['Z', 'z'])
                    || (b.len() >= 25 && matches!(b[b.len() - 6], b'+' | b'-'));
                if b.get(4) == Some(&b'-') && has_clock && zoned {
                    parse_text_expecting(
                        s,
                        "expected an RFC 3339 date-time such as 2021-10-05T11:09:00Z, as \
                         --time-format rfc3339 says",
                    )
                } else {
                    Err(format!(
                        "`{s}` is not an RFC 3339 date-time such as 2021-10-05T11:09:00Z \
                         (--time-format rfc3339)"
                    ))
                }
            }
            TimeFormat::Date => {
                if s.len() == 10 {
                    parse_text_expecting(
                        s,
                        "expected a date YYYY-MM-DD or YYYY.MM.DD, as --time-format date says",
                    )
                } else {
                    Err(format!(
                        "`{s}` is not a date YYYY-MM-DD or YYYY.MM.DD (--time-format date)"
                    ))
                }
            }
            TimeFormat::Yyyymmdd => yyyymmdd(s).ok_or_else(|| {
                format!("`{s}` is not a valid date YYYYMMDD (--time-format yyyymmdd)")
            }),
            TimeFormat::Unix => match integer(s).or_else(|| decimal_seconds(s)) {
                Some(v) => seconds(s, v),
                None => Err(format!("`{s}` is not Unix seconds (--time-format unix)")),
            },
            TimeFormat::UnixMs => match integer(s) {
                Some(v) => seconds(s, v.div_euclid(1000)),
                None => Err(format!(
                    "`{s}` is not integer Unix milliseconds (--time-format unix-ms)"
                )),
            },
            TimeFormat::Strftime(p) => strftime(s, p),
        }
    }

    fn expected(&self) -> String {
        match &self.format {
            TimeFormat::Auto => ACCEPTED.to_string(),
            f => format!("--time-format {f}"),
        }
    }

    /// Under `auto`, an integer `v` read as the column's first integer was; `fraction`: seconds
    /// with a fraction (lmarena's `tstamp`), never a YYYYMMDD date.
    fn auto_integer(&mut self, s: &str, v: i64, fraction: bool) -> Result<i64, String> {
        let as_date = if fraction { None } else { yyyymmdd(s) };
        match (&self.integers, as_date) {
            (Integers::Unseen, Some(t)) => {
                self.integers = Integers::Dates(s.to_string());
                Ok(t)
            }
            (Integers::Unseen, None) => {
                let t = seconds(s, v)?;
                self.integers = Integers::Seconds(s.to_string());
                Ok(t)
            }
            (Integers::Dates(_), Some(t)) => Ok(t),
            (Integers::Seconds(_), None) => seconds(s, v),
            (Integers::Dates(first), None) if fraction => Err(format!(
                "`{s}` is Unix seconds, but the column's first integer `{first}` was read as a \
                 YYYYMMDD date ({}); correct the value, or pass --time-format",
                date_text(first)
            )),
            (Integers::Dates(first), None) => Err(format!(
                "`{s}` is not a YYYYMMDD date, but the column's first integer `{first}` was read \
                 as one ({}); if the column holds Unix seconds (`{first}` = {}), pass \
                 --time-format unix, else correct the value",
                date_text(first),
                seconds_text(first),
            )),
            (Integers::Seconds(first), Some(t)) => Err(format!(
                "ambiguous time `{s}`: as a YYYYMMDD date it is {}, as Unix seconds {}; the \
                 column's first integer `{first}` is not a date, so it was read as Unix seconds \
                 ({}): pass --time-format unix or --time-format yyyymmdd",
                format_time(t).get(..10).unwrap_or(""),
                seconds_text(s),
                seconds_text(first),
            )),
        }
    }
}

/// Seconds with a fraction (`1712345678.25`: an optional sign, digits, a point, digits),
/// as the whole seconds at or before it.
fn decimal_seconds(s: &str) -> Option<i64> {
    let (whole, fraction) = s.split_once('.')?;
    if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v = integer(whole)?;
    let below = whole.starts_with('-') && fraction.bytes().any(|b| b != b'0');
    Some(if below { v.saturating_sub(1) } else { v })
}

/// An optional sign and digits, as an i64.
fn integer(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        s.parse::<i64>()
            .unwrap_or(if b[0] == b'-' { i64::MIN } else { i64::MAX }),
    )
}

/// Unix seconds within [`TIME_RANGE`].
fn seconds(s: &str, t: i64) -> Result<i64, String> {
    if in_years(t) {
        return Ok(t);
    }
    // 12 to 14 digits are milliseconds of the years 1973 to 5138.
    let digits = s.trim_start_matches('-').len();
    let hint = if (12..=14).contains(&digits) {
        "; it looks like milliseconds: pass --time-format unix-ms"
    } else {
        ""
    };
    Err(format!(
        "time `{s}` is outside the years 0 to 9999 as Unix seconds{hint}"
    ))
}

/// `YYYYMMDD` with a valid date (year 1000 or later), as Unix seconds.
fn yyyymmdd(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 8 || b[0] == b'0' {
        return None;
    }
    let year = digits(&b[0..4])?;
    let date = NaiveDate::from_ymd_opt(year as i32, digits(&b[4..6])?, digits(&b[6..8])?)?;
    Some(days_since_epoch(date) * 86_400)
}

fn date_text(s: &str) -> String {
    yyyymmdd(s).map_or_else(String::new, |t| format_time(t)[..10].to_string())
}

fn seconds_text(s: &str) -> String {
    integer(s)
        .filter(|&t| in_years(t))
        .map_or_else(|| "out of range".to_string(), format_time)
}

fn days_since_epoch(date: NaiveDate) -> i64 {
    date.signed_duration_since(NaiveDate::from_ymd_opt(1970, 1, 1).expect("a date"))
        .num_days()
}

fn strftime(s: &str, pattern: &str) -> Result<i64, String> {
    let t = DateTime::parse_from_str(s, pattern)
        .map(|t| t.timestamp())
        .or_else(|_| NaiveDateTime::parse_from_str(s, pattern).map(|t| t.and_utc().timestamp()))
        .or_else(|_| NaiveDate::parse_from_str(s, pattern).map(|d| days_since_epoch(d) * 86_400))
        .map_err(|e| format!("`{s}` does not match --time-format '{pattern}' ({e})"))?;
    utc_years(s, t)
}

/// Parses one time stamp the way `auto` does, without a column: integers are Unix seconds,
/// except 8-digit valid dates, which are refused as ambiguous (for `--as-of`).
pub fn parse_time(s: &str) -> Result<i64, String> {
    let s = s.trim();
    match integer(s) {
        Some(v) => match yyyymmdd(s) {
            Some(t) => Err(format!(
                "ambiguous time `{s}`: as a YYYYMMDD date it is {day}, as Unix seconds {}; write \
                 the date as {day} or pass --time-format yyyymmdd or unix",
                seconds_text(s),
                day = &format_time(t)[..10],
            )),
            None => seconds(s, v),
        },
        None if s.is_empty() => Err(format!("empty time ({ACCEPTED})")),
        None => parse_text(s),
    }
}

/// Parses the text forms (no integers), within the years 0 to 9999 (UTC).
pub fn parse_text(s: &str) -> Result<i64, String> {
    parse_text_expecting(s, ACCEPTED)
}

/// [`parse_text`], with `expected` saying in a malformed value's message what was expected
/// (the forms of `auto`, or those of an explicit `--time-format`).
fn parse_text_expecting(s: &str, expected: &str) -> Result<i64, String> {
    utc_years(s, parse_text_any(s, expected)?)
}

/// Whether Unix seconds `t` fall within [`TIME_RANGE`].
fn in_years(t: i64) -> bool {
    (TIME_RANGE.0..=TIME_RANGE.1).contains(&t)
}

/// The time `t` read from `s`, refused outside [`TIME_RANGE`].
fn utc_years(s: &str, t: i64) -> Result<i64, String> {
    if in_years(t) {
        Ok(t)
    } else {
        Err(format!(
            "time `{}` is outside the years 0 to 9999 in UTC",
            s.trim()
        ))
    }
}

fn parse_text_any(s: &str, expected: &str) -> Result<i64, String> {
    let s = s.trim();
    let bad = || format!("malformed time `{s}` ({expected})");
    if s.is_empty() {
        return Err(format!("empty time ({expected})"));
    }
    let b = s.as_bytes();
    if b.len() < 10 || !matches!(b[4], b'-' | b'.') || b[7] != b[4] {
        return Err(bad());
    }
    let pgn = b[4] == b'.';
    let days = days_since_epoch(date(b, pgn).ok_or_else(bad)?);
    // (The ten bytes of the date are ASCII.)
    let rest = &s[10..];
    if rest.is_empty() {
        return Ok(days * 86_400);
    }
    if pgn {
        return Err(bad());
    }
    match clock(rest) {
        Some(Ok(secs)) => return Ok(days * 86_400 + secs),
        Some(Err(m)) => return Err(format!("malformed time `{s}`: {m}")),
        None => {}
    }
    // Offsets other than Z: chrono reads the full RFC 3339 form.
    let t = DateTime::parse_from_rfc3339(s).map_err(|_| bad())?;
    if t.nanosecond() >= 1_000_000_000 {
        // chrono's leap second: 23:59:59 and a second more of nanoseconds.
        let utc = t.naive_utc();
        if (utc.hour(), utc.minute()) != (23, 59) {
            return Err(format!(
                "malformed time `{s}`: a second 60 is a leap second, which only 23:59:60 UTC \
                 can be"
            ));
        }
    }
    Ok(t.timestamp())
}

/// The date of the first ten bytes, `YYYY-MM-DD`, or `YYYY.MM.DD` (`pgn`) where `??` is the
/// first month or day.
fn date(b: &[u8], pgn: bool) -> Option<NaiveDate> {
    let part = |r: std::ops::Range<usize>| match &b[r.clone()] {
        b"??" if pgn => Some(1),
        d => digits(d),
    };
    NaiveDate::from_ymd_opt(digits(&b[0..4])? as i32, part(5..7)?, part(8..10)?)
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
/// `None` when the form is not this one (an offset, say); an error when it is but the clock
/// is impossible.
fn clock(rest: &str) -> Option<Result<i64, String>> {
    let b = rest.as_bytes();
    if b.len() < 6 || !matches!(b[0], b' ' | b'T' | b't') || b[3] != b':' {
        return None;
    }
    let (h, m) = (digits(&b[1..3])?, digits(&b[4..6])?);
    let (mut sec, mut end) = (0, 6);
    if b.len() >= 9 && b[6] == b':' {
        sec = digits(&b[7..9])?;
        end = 9;
        if b.get(9) == Some(&b'.') {
            let fraction = b[10..].iter().take_while(|c| c.is_ascii_digit()).count();
            if fraction == 0 {
                return None;
            }
            end = 10 + fraction;
        }
    }
    if !matches!(rest.get(end..)?, "" | "Z" | "z" | " UTC" | "+00:00") {
        return None;
    }
    if h > 23 || m > 59 || sec > 60 {
        return Some(Err(format!("no clock reads {h:02}:{m:02}:{sec:02}")));
    }
    if sec == 60 {
        // A leap second: only at the end of a UTC day; read as the second before it.
        if (h, m) != (23, 59) {
            return Some(Err(format!(
                "{h:02}:{m:02}:60 is not a leap second (only 23:59:60 UTC can be one)"
            )));
        }
        sec = 59;
    }
    Some(Ok((h * 3600 + m * 60 + sec) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto() -> TimeParser {
        TimeParser::new(TimeFormat::Auto)
    }

    #[test]
    fn integer_times_stay_within_printable_years() {
        assert_eq!(parse_time("253402300799"), Ok(253_402_300_799));
        assert_eq!(format_time(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(parse_time("-62167219200"), Ok(-62_167_219_200));
        for t in [
            "253402300800",
            "9223372036854775807",
            "-62167219201",
            "99999999999999999999",
        ] {
            assert!(
                parse_time(t).unwrap_err().contains("years 0 to 9999"),
                "{t}"
            );
        }
        // Milliseconds are recognised in the message.
        assert!(
            parse_time("1672617600000")
                .unwrap_err()
                .contains("--time-format unix-ms")
        );
    }

    #[test]
    fn every_documented_form() {
        let mut p = auto();
        assert_eq!(p.parse("2021-10-05T11:09:00Z"), Ok(1_633_432_140));
        assert_eq!(p.parse("2021-10-05T13:09:00+02:00"), Ok(1_633_432_140));
        assert_eq!(p.parse("2021-10-05 11:09:00"), Ok(1_633_432_140));
        assert_eq!(p.parse("2021-10-05 11:09"), Ok(1_633_432_140));
        assert_eq!(p.parse("2021-10-05T11:09:00.250Z"), Ok(1_633_432_140));
        assert_eq!(p.parse("2021-10-05"), Ok(1_633_392_000));
        assert_eq!(p.parse("2021.10.05"), Ok(1_633_392_000));
        assert_eq!(p.parse("2021.10.??"), Ok(1_633_046_400));
        assert_eq!(p.parse(" 1970-01-02 "), Ok(86_400));
        assert_eq!(p.reading(), "auto: text dates and times");
        let mut p = auto();
        assert_eq!(p.parse("1266588000"), Ok(1_266_588_000));
        assert_eq!(p.parse("-86400"), Ok(-86_400));
        assert!(p.reading().contains("Unix seconds (the first: 1266588000)"));
        // Seconds with a fraction (lmarena's `tstamp`): the second at or before.
        let mut p = auto();
        assert_eq!(p.parse("1712345678.625"), Ok(1_712_345_678));
        assert_eq!(p.parse("1712345679"), Ok(1_712_345_679));
        assert_eq!(p.parse("-86400.5"), Ok(-86_401));
        assert_eq!(p.parse("-86400.0"), Ok(-86_400));
        assert!(
            p.reading()
                .contains("Unix seconds (the first: 1712345678.625)")
        );
        assert!(p.parse("1712345678.").is_err());
        // ... refused in a column of dates.
        let mut p = auto();
        assert_eq!(p.parse("20230102"), Ok(1_672_617_600));
        assert!(p.parse("1712345678.5").unwrap_err().contains("YYYYMMDD"));
        let mut p = TimeParser::new(TimeFormat::Unix);
        assert_eq!(p.parse("86400.9"), Ok(86_400));
    }

    #[test]
    fn yyyymmdd_columns_read_as_dates_and_mixed_columns_are_refused() {
        // Sackmann's ATP files: tourney_date 20230102.
        let mut p = auto();
        assert_eq!(p.parse("20230102"), Ok(1_672_617_600));
        assert_eq!(format_time(1_672_617_600), "2023-01-02T00:00:00Z");
        assert_eq!(p.parse("20231231"), Ok(1_703_980_800));
        assert!(p.reading().contains("YYYYMMDD dates (the first: 20230102)"));
        // A column of dates with a value that is no date: refused, both readings named.
        let e = p.parse("20231399").unwrap_err();
        assert!(e.contains("--time-format unix"), "{e}");
        assert!(e.contains("1970-08-23T03:28:22Z"), "{e}");
        // A column of seconds with a value that is also a date: ambiguous.
        let mut p = auto();
        assert_eq!(p.parse("86400"), Ok(86_400));
        let e = p.parse("20230102").unwrap_err();
        assert!(e.contains("ambiguous"), "{e}");
        assert!(e.contains("2023-01-02"), "{e}");
        assert!(e.contains("1970-08-23T03:28:22Z"), "{e}");
        assert!(
            e.contains("--time-format unix or --time-format yyyymmdd"),
            "{e}"
        );
        // The flags settle it.
        let mut p = TimeParser::new(TimeFormat::Unix);
        assert_eq!(p.parse("20230102"), Ok(20_230_102));
        assert!(p.parse("2023-01-02").is_err());
        let mut p = TimeParser::new(TimeFormat::Yyyymmdd);
        assert_eq!(p.parse("20230102"), Ok(1_672_617_600));
        assert!(p.parse("2023010").is_err());
        assert!(p.parse("20230230").is_err());
        // Without a column (--as-of), an 8-digit date is ambiguous.
        assert!(parse_time("20230630").unwrap_err().contains("2023-06-30"));
    }

    /// A repeated value comes from the cache with the same time; a failed one is not cached,
    /// and the cache does not carry a value past the column's reading of integers.
    #[test]
    fn repeated_values_read_the_same() {
        let mut p = auto();
        assert_eq!(p.parse("2021-10-05"), Ok(1_633_392_000));
        assert_eq!(p.parse(" 2021-10-05 "), Ok(1_633_392_000));
        assert!(p.parse("2021-13-05").is_err());
        assert!(p.parse("2021-13-05").is_err());
        assert_eq!(p.parse("86400"), Ok(86_400));
        assert_eq!(p.parse("86400"), Ok(86_400));
        assert!(p.parse("20230102").unwrap_err().contains("ambiguous"));
        assert!(p.parse("20230102").unwrap_err().contains("ambiguous"));
        assert_eq!(p.parse("2021-10-05"), Ok(1_633_392_000));
        assert!(p.reading().contains("Unix seconds (the first: 86400)"));
    }

    #[test]
    fn the_other_formats() {
        let mut ms = TimeParser::new(TimeFormat::UnixMs);
        assert_eq!(ms.parse("1633432140999"), Ok(1_633_432_140));
        assert_eq!(ms.parse("-1"), Ok(-1));
        let mut d = TimeParser::new(TimeFormat::Date);
        assert_eq!(d.parse("2021-10-05"), Ok(1_633_392_000));
        assert!(d.parse("2021-10-05T11:09:00Z").is_err());
        // A malformed date under an explicit format names that format, not auto's forms.
        let e = d.parse("2021-13-05").unwrap_err();
        assert!(e.contains("--time-format date says"), "{e}");
        assert!(!e.contains("names another form"), "{e}");
        let mut r = TimeParser::new(TimeFormat::Rfc3339);
        // Four bytes (no index 4): refused, not a panic.
        for short in ["2021", "202", "2", "20211"] {
            let e = r.parse(short).unwrap_err();
            assert!(e.contains("--time-format rfc3339"), "{short}: {e}");
        }
        let e = r.parse("2021-13-05T11:09:00Z").unwrap_err();
        assert!(e.contains("--time-format rfc3339 says"), "{e}");
        assert!(!e.contains("names another form"), "{e}");
        assert_eq!(r.parse("2021-10-05T13:09:00+02:00"), Ok(1_633_432_140));
        assert_eq!(r.parse("2021-10-05T11:09:00Z"), Ok(1_633_432_140));
        assert!(r.parse("2021-10-05").is_err());
        assert!(r.parse("2021-10-05 11:09").is_err());
        let mut s: TimeParser = TimeParser::new("%d/%m/%Y".parse().unwrap());
        assert_eq!(s.parse("05/10/2021"), Ok(1_633_392_000));
        assert!(s.parse("2021-10-05").unwrap_err().contains("'%d/%m/%Y'"));
        let mut s = TimeParser::new("%d.%m.%Y %H:%M".parse().unwrap());
        assert_eq!(s.parse("05.10.2021 11:09"), Ok(1_633_432_140));
        let mut s = TimeParser::new("%Y-%m-%d %H:%M %z".parse().unwrap());
        assert_eq!(s.parse("2021-10-05 13:09 +0200"), Ok(1_633_432_140));
        assert!("%Q".parse::<TimeFormat>().is_err());
        assert!("nonsense".parse::<TimeFormat>().is_err());
        for f in [
            "auto", "rfc3339", "date", "yyyymmdd", "unix", "unix-ms", "%Y",
        ] {
            assert_eq!(f.parse::<TimeFormat>().unwrap().to_string(), f);
        }
    }

    #[test]
    fn leap_seconds_stay_on_their_day() {
        let mut p = auto();
        let before = p.parse("2016-12-31T23:59:59Z").unwrap();
        assert_eq!(p.parse("2016-12-31T23:59:60Z"), Ok(before));
        assert_eq!(p.parse("2016-12-31 23:59:60"), Ok(before));
        assert_eq!(p.parse("2017-01-01T00:59:60+01:00"), Ok(before));
        assert!(p.parse("2016-12-31T12:00:60Z").is_err());
        assert!(p.parse("2017-01-01T00:30:60+01:00").is_err());
        assert!(p.parse("2016-12-31T23:59:61Z").is_err());
        // Offsets cannot carry a time out of the years 0 to 9999.
        assert!(p.parse("0000-01-01T00:00:00+01:00").is_err());
        assert!(p.parse("9999-12-31T23:59:59-01:00").is_err());
        assert_eq!(p.parse("0000-01-01T00:00:00Z"), Ok(TIME_RANGE.0));
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
            "-",
        ] {
            assert!(auto().parse(bad).is_err(), "{bad} accepted");
        }
        assert!(
            auto()
                .parse("2021-1x-05")
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
            assert_eq!(parse_text(&format_time(t)), Ok(t), "{t}");
        }
    }
}
