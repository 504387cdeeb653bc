//! PGN chess games: the tag pairs `White`, `Black`, `Result` and the time from
//! `UTCDate`/`UTCTime`, else `Date` (`YYYY.MM.DD`, `??` for an unknown month or day). Move text
//! may be present or not and is not interpreted. `Result "*"` (unfinished) is skipped and
//! counted; any result other than `1-0`, `0-1`, `1/2-1/2` is invalid.
//!
//! Games are separated by their move text, or, in files without move text, by a tag that the
//! current game already has. Lines that are not UTF-8 are read as Latin-1, which is what older
//! PGN files use.

use super::context::Context;
use super::errors::{FieldError, Location};
use crate::history::PlayerId;
use anyhow::Context as _;
use std::io::{BufRead, Read};
use std::path::Path;

/// Tag pairs a game may have: far more than any real game (a few dozen), few enough that a
/// hostile file cannot make one game cost without bound.
pub(crate) const MAX_TAGS: usize = 10_000;

/// Tag names kept from game to game: a few dozen in a real file; past this many (a hostile
/// file's), the map starts again.
const KEPT_TAG_NAMES: usize = 256;

#[derive(Default)]
struct Game {
    line: u64,
    /// The tags of this game and of earlier ones, by name: each value, line, and the number
    /// of the game it belongs to. Kept from game to game, so that the same few dozen names
    /// and their values' buffers are reused rather than allocated again for every game.
    tags: rustc_hash::FxHashMap<String, (String, u64, u64)>,
    /// This game's number, and how many tags it has (a repeated one starts the next game in
    /// files without move text).
    number: u64,
    count: usize,
    /// With `--dedupe`: the digest of the moves so far.
    moves: Moves,
}

impl Game {
    fn tag(&self, name: &str) -> Option<(&str, u64)> {
        let (v, l, n) = self.tags.get(name)?;
        (*n == self.number).then_some((v.as_str(), *l))
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Sets a tag not yet set in this game.
    fn set(&mut self, name: &str, value: &str, line: u64) {
        self.count += 1;
        match self.tags.get_mut(name) {
            Some((v, l, n)) => {
                v.clear();
                v.push_str(value);
                (*l, *n) = (line, self.number);
            }
            None => {
                let entry = (value.to_string(), line, self.number);
                self.tags.insert(name.to_string(), entry);
            }
        }
    }

    /// Empties the game for the next one (the names of earlier games are forgotten when a
    /// hostile file has given many).
    fn next(&mut self) {
        self.number += 1;
        self.count = 0;
        if self.tags.len() > KEPT_TAG_NAMES {
            self.tags = Default::default();
        }
        self.moves = Moves::default();
    }

    /// A tag the game must have, else the error at the game's first line.
    fn required(&self, tag: &str) -> Result<(&str, u64), (u64, FieldError)> {
        let missing = || FieldError::new(tag, format!("game has no {tag} tag"));
        self.tag(tag).ok_or_else(|| (self.line, missing()))
    }
}

/// FNV-1a of `bytes`, continued from `h`.
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The digest of a game's moves as played: the move text without its comments (`{...}`,
/// `;` to the end of the line), variations (`(...)`), annotations (`$1`, `!?`), move numbers
/// and result, so that two copies of a game annotated or laid out differently agree.
#[derive(Default)]
struct Moves {
    hash: u64,
    count: u32,
    brace: u32,
    paren: u32,
}

impl Moves {
    /// Takes a line of move text (the comments and variations open at its end stay open).
    fn feed(&mut self, line: &[u8]) {
        // A token ends at a space or at what opens or closes a comment or a variation.
        let mut start = 0;
        for (i, &b) in line.iter().enumerate() {
            if self.brace > 0 {
                if b == b'}' {
                    self.brace -= 1;
                }
                start = i + 1;
                continue;
            }
            if !matches!(b, b'{' | b';' | b'(' | b')' | b' ' | b'\t' | b'\r' | b'\n') {
                continue;
            }
            if self.paren == 0 {
                self.token(&line[start..i]);
            }
            start = i + 1;
            match b {
                b'{' => self.brace += 1,
                b';' => return,
                b'(' => self.paren += 1,
                b')' => self.paren = self.paren.saturating_sub(1),
                _ => {}
            }
        }
        if self.paren == 0 {
            self.token(&line[start..]);
        }
    }

    /// One token of the main line: a move is kept (without its move number and its `!`/`?`
    /// marks); numbers, annotations and results are not.
    fn token(&mut self, t: &[u8]) {
        let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
        let dots = t[digits..].iter().take_while(|&&b| b == b'.').count();
        let t = if digits > 0 && dots > 0 {
            &t[digits + dots..]
        } else {
            t
        };
        let t = t
            .iter()
            .rposition(|&b| b != b'!' && b != b'?')
            .map_or(&t[..0], |i| &t[..=i]);
        if t.is_empty()
            || t[0] == b'$'
            || matches!(t, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
            || t.iter().all(u8::is_ascii_digit)
        {
            return;
        }
        self.hash = fnv(fnv(self.hash, t), b" ");
        self.count += 1;
    }
}

/// The reader of PGN files.
pub(crate) struct Pgn;

impl super::Reader for Pgn {
    /// Reads a PGN file line by line, a game at a time.
    fn read(&self, path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
        ctx.source.record_unit = "games".into();
        let mut r = super::source::open(path)?;
        let mut buf = Vec::new();
        let mut line_no = 0u64;
        let mut game = Game::default();
        let mut in_moves = false;
        let mut comment_depth = 0usize;
        loop {
            buf.clear();
            let n = (&mut r)
                .take(super::lines::MAX_LINE + 1)
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            if line_no == 1
                && let Some(what) = super::lines::not_text(&buf)
            {
                return Err(ctx.stop(Location::File, what));
            }
            if n as u64 > super::lines::MAX_LINE {
                let e = super::lines::LineTooLong { line: line_no };
                return Err(ctx.stop(Location::Line(line_no), e.to_string()));
            }
            // Move text, most of a PGN with moves, is scanned as bytes: no decoding. (A line
            // that begins with a tag, `%`, or a byte beyond ASCII is decoded first.)
            let text;
            let moves = match buf.iter().find(|b| !b.is_ascii_whitespace()) {
                None | Some(b'%') => continue,
                Some(&b) if b < 0x80 && (b != b'[' || comment_depth > 0) => &buf[..],
                Some(_) => {
                    text = decode(&buf);
                    let line = text.trim_start_matches('\u{feff}').trim();
                    if comment_depth == 0 && line.starts_with('[') {
                        let (name, value) =
                            parse_tag(line).map_err(|m| ctx.stop(Location::Line(line_no), m))?;
                        if in_moves || game.tag(name).is_some() {
                            finish_game(ctx, &mut game)?;
                            in_moves = false;
                        }
                        if game.is_empty() {
                            game.line = line_no;
                        }
                        if game.count >= MAX_TAGS {
                            let m = format!(
                                "the game has more than {MAX_TAGS} tag pairs (line {line_no}): \
                                 not a chess game's header"
                            );
                            return Err(ctx.stop(Location::Line(game.line), m));
                        }
                        game.set(name, &value, line_no);
                        continue;
                    }
                    if line.is_empty() || line.starts_with('%') {
                        continue;
                    }
                    line.as_bytes()
                }
            };
            // Of move text only the comments matter, so that a `[` inside `{...}` is not a tag.
            for brace in memchr::memchr2_iter(b'{', b'}', moves) {
                if moves[brace] == b'{' {
                    comment_depth += 1;
                } else {
                    comment_depth = comment_depth.saturating_sub(1);
                }
            }
            in_moves |= !game.is_empty();
            if ctx.opts.dedupe {
                game.moves.feed(moves);
            }
        }
        if !game.is_empty() {
            finish_game(ctx, &mut game)?;
        }
        Ok(())
    }

    fn takes_time_format(&self) -> bool {
        false
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["pgn"]
    }
}

/// Lines are UTF-8 when they can be, else Latin-1.
fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

/// `[Name "value"]` with `\"` and `\\` escapes in the value.
fn parse_tag(line: &str) -> Result<(&str, std::borrow::Cow<'_, str>), String> {
    let bad = || format!("malformed tag pair `{line}`");
    let inner = line.strip_prefix('[').ok_or_else(bad)?.trim_end();
    let inner = inner.strip_suffix(']').ok_or_else(bad)?.trim();
    let (name, rest) = inner
        .split_once(|c: char| c.is_whitespace())
        .ok_or_else(bad)?;
    let rest = rest.trim();
    let body = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(bad)?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad());
    }
    if !body.contains('\\') {
        return Ok((name, std::borrow::Cow::Borrowed(body)));
    }
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        value.push(if c == '\\' {
            chars.next().ok_or_else(bad)?
        } else {
            c
        });
    }
    Ok((name, std::borrow::Cow::Owned(value)))
}

/// Takes a game read whole, and empties it for the next.
fn finish_game(ctx: &mut Context, game: &mut Game) -> anyhow::Result<()> {
    ctx.source.records += 1;
    if let Err((line, e)) = check_game(ctx, game) {
        ctx.reject(Location::Line(line), e)?;
    }
    ctx.after_record(&Location::Line(game.line))?;
    game.next();
    Ok(())
}

fn check_game(ctx: &mut Context, game: &Game) -> Result<(), (u64, FieldError)> {
    let start = game.line;
    let Some(score_white) = white_score(game)? else {
        ctx.source.skipped_unfinished += 1;
        return Ok(());
    };
    ctx.pool = game_pool(ctx, game)?;
    let trim = ctx.opts.trim_names;
    let (white, black) = (player(game, "White", trim)?, player(game, "Black", trim)?);
    for (name, tag) in [(&white, "White"), (&black, "Black")] {
        ctx.check_pooled_name(name, tag).map_err(|e| (start, e))?;
    }
    let time = game_time(game)?;
    if white == black {
        return Err((
            start,
            FieldError::new("Black", format!("player `{white}` plays against himself")),
        ));
    }
    let (w, bl) = (ctx.player(&white), ctx.player(&black));
    if ctx.opts.events {
        ctx.builder.name_next_game(&event_name(game, time));
    }
    if ctx.opts.dedupe {
        ctx.builder.fingerprint(fingerprint(game));
    }
    if ctx.opts.seed_from_pgn {
        for (id, tag) in [(w, "WhiteElo"), (bl, "BlackElo")] {
            keep_rating_tag(ctx, game, (id, tag), time);
        }
    }
    ctx.builder.result_only_next();
    ctx.builder
        .add_game(
            time,
            1.0,
            None,
            (&[w], &[bl]),
            score_white,
            Some((score_white, 1.0 - score_white)),
        )
        .map_err(|e| (start, FieldError::new("Black", e.to_string())))
}

/// White's score by the game's `Result` tag; `None` for a game not finished (`*`).
fn white_score(game: &Game) -> Result<Option<f64>, (u64, FieldError)> {
    let (result, result_line) = game.required("Result")?;
    match result.trim() {
        "1-0" => Ok(Some(1.0)),
        "0-1" => Ok(Some(0.0)),
        "1/2-1/2" => Ok(Some(0.5)),
        "*" => Ok(None),
        other => Err((
            result_line,
            FieldError::new(
                "Result",
                format!("invalid result `{other}` (expected 1-0, 0-1, 1/2-1/2 or *)"),
            ),
        )),
    }
}

/// The player a tag (`White`, `Black`) names.
fn player(game: &Game, tag: &str, trim: bool) -> Result<String, (u64, FieldError)> {
    let (v, l) = game.required(tag)?;
    // `?` and an empty value mean unknown (the PGN standard); any other value is a name,
    // kept as given (see the readers' rule on names).
    if v.is_empty() || v == "?" {
        return Err((l, FieldError::new(tag, format!("unknown player `{v}`"))));
    }
    let v = super::context::player_name(v, tag, trim).map_err(|e| (l, e))?;
    Ok(v.to_string())
}

/// The game's rating pool: the tag `--pool-by` names, else (Lichess's speed classes) its
/// time control's class.
fn game_pool(ctx: &Context, game: &Game) -> Result<Option<String>, (u64, FieldError)> {
    if let Some(tag) = &ctx.opts.pool_tag {
        let (v, l) = game.tag(tag).unwrap_or(("", game.line));
        let pool = super::games::pool_value(v, tag).map_err(|e| (l, e))?;
        return Ok(Some(pool.to_string()));
    }
    let Some((tc, l)) = game.tag("TimeControl").filter(|_| ctx.opts.speed_pools) else {
        return Ok(None);
    };
    let class = super::games::speed_class(tc).ok_or_else(|| {
        let m = format!(
            "`{}` is not a time control (`base+increment` in seconds, or `-`)",
            tc.trim()
        );
        (l, FieldError::new("TimeControl", m))
    })?;
    Ok(Some(class.to_string()))
}

/// Keeps player `id`'s rating of the tag `tag` (`WhiteElo`, `BlackElo`) if it is his
/// earliest yet (`--seed-from-pgn`).
fn keep_rating_tag(ctx: &mut Context, game: &Game, (id, tag): (PlayerId, &str), time: i64) {
    let rating = game
        .tag(tag)
        .and_then(|(v, _)| v.trim().parse::<f64>().ok())
        .filter(|r| r.is_finite() && *r > 0.0 && *r < 1e5);
    let Some(r) = rating else { return };
    let tags = &mut ctx.source.rating_tags;
    if tags.len() <= id as usize {
        tags.resize(id as usize + 1, None);
    }
    let slot = &mut tags[id as usize];
    if slot.is_none_or(|(t, _)| time < t) {
        *slot = Some((time, r));
    }
}

/// A game's event, as `--period event` groups games: its `Event` tag and `EventDate` (a
/// recurring event's editions apart), else the month of the game; a game without an `Event`
/// tag (or `?`) is an event of its own month.
fn event_name(game: &Game, time: i64) -> String {
    let event = game
        .tag("Event")
        .map(|(v, _)| v.trim())
        .filter(|v| !v.is_empty() && *v != "?")
        .unwrap_or("?");
    let date = game
        .tag("EventDate")
        .map(|(v, _)| v.trim())
        .filter(|v| v.len() == 10 && !v.contains('?'));
    match date {
        Some(d) => format!("{event} ({d})"),
        None => {
            let day = crate::time::format_time(time);
            format!("{event} ({})", &day[..7.min(day.len())])
        }
    }
}

/// What `--dedupe` compares of a game besides its time, players and result: its moves
/// ([`Moves`]); for a game without moves, its `Round` tag.
fn fingerprint(game: &Game) -> u64 {
    let h = 0xcbf2_9ce4_8422_2325u64;
    if game.moves.count > 0 {
        (h ^ game.moves.hash).wrapping_mul(0x0000_0100_0000_01b3) ^ u64::from(game.moves.count)
    } else if let Some((round, _)) = game.tag("Round") {
        fnv(fnv(h, b"round:"), round.trim().as_bytes())
    } else {
        h
    }
}

/// `UTCDate` + `UTCTime` when present, else `Date`.
fn game_time(game: &Game) -> Result<i64, (u64, FieldError)> {
    let (tag, (date, line)) = ["UTCDate", "Date"]
        .into_iter()
        .find_map(|tag| Some((tag, game.tag(tag)?)))
        .ok_or_else(|| {
            let e = FieldError::new("Date", "game has no Date or UTCDate tag");
            (game.line, e)
        })?;
    let day = super::time::parse_text(date).map_err(|m| (line, FieldError::new(tag, m)))?;
    let Some((clock, cl)) = game.tag("UTCTime").filter(|_| tag == "UTCDate") else {
        return Ok(day);
    };
    let secs = parse_clock(clock).ok_or_else(|| {
        let m = format!(
            "malformed time `{clock}` (expected HH:MM:SS; a second 60 only as the leap second \
             23:59:60)"
        );
        (cl, FieldError::new("UTCTime", m))
    })?;
    Ok(day + secs)
}

fn parse_clock(s: &str) -> Option<i64> {
    let mut parts = s.trim().split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let sec: i64 = match parts.next() {
        Some(p) => p.split('.').next()?.parse().ok()?,
        None => 0,
    };
    // A leap second (23:59:60, UTC) is read as the second before it, as in a CSV: Unix time
    // has none, and the game stays on its day.
    let leap = (h, m, sec) == (23, 59, 60);
    if parts.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..60).contains(&sec) && !leap
    {
        return None;
    }
    Some(h * 3600 + m * 60 + sec.min(59))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_pairs() {
        assert_eq!(
            parse_tag(r#"[White "Carlsen, M"]"#),
            Ok(("White", "Carlsen, M".into()))
        );
        assert_eq!(
            parse_tag(r#"[Event "The \"Cup\""]"#),
            Ok(("Event", "The \"Cup\"".into()))
        );
        assert!(parse_tag("[White Carlsen]").is_err());
        assert!(parse_tag(r#"[White "x""#).is_err());
    }

    #[test]
    fn clocks() {
        assert_eq!(parse_clock("11:09:00"), Some(40_140));
        assert_eq!(parse_clock("24:00:00"), None);
        assert_eq!(parse_clock("23:59:60"), parse_clock("23:59:59"));
        assert_eq!(parse_clock("12:00:60"), None);
        assert_eq!(parse_clock("??:??:??"), None);
    }
}
