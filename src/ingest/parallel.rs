//! A large games CSV parsed on every core, with the results of the sequential reader
//! ([`super::table::read_sequential`]) in every respect: the contests and their order, the
//! players' ids (in order of first appearance), the counts and skipped examples, the first
//! error with its file, line and field, the time column's reading, and what a counting read
//! does after each record (time order's first break). A streamed read's rating pass is read on
//! one thread (`csv_input`): the replay has the other core.
//!
//! After the header (read as the sequential reader reads it), a chunker thread cuts the byte
//! stream into pieces of about [`Sizes::chunk`] bytes at record boundaries: a line feed outside
//! a quoted field, found by [`Scanner`], which follows the CSV parser's quoting exactly (a
//! quoted field may hold line feeds). It counts each piece's line feeds, so that every piece
//! knows the line it begins on. Worker threads (`--threads`, one per core by default) parse the
//! pieces with the sequential reader's record loop ([`super::table::read_records`]), each into
//! a builder of its own that keeps its players from piece to piece, noting which of them each
//! piece names in the order of their first appearance; a piece stops at its first error. The
//! calling thread merges the results strictly in order: it gives each worker's player an id in
//! the read's builder when a merged piece first names him (so ids come in order of first
//! appearance), appends the contests (one at a time when counting, where
//! [`Context::after_record`] looks for the first break of time order), adds the counts
//! and the first skipped examples, and returns the first error. A counting read interns no
//! name at all. How many threads there are changes nothing but the time taken.
//!
//! The time column's `auto` reading of integers is settled by the column's first integer, so
//! a piece's parse depends on the pieces before it. A piece is parsed with the reading
//! settled when it is known as it begins (a piece after the first integer's); one parsed
//! before it was known, whose result could differ with it, is parsed again with it.
//!
//! Small inputs (under [`Sizes::parallel_from`]), standings, and inputs whose first records
//! name mostly distinct players ([`mostly_distinct`]) are read sequentially.

use super::context::{Appearances, Context};
use super::errors::{FieldError, Location};
use super::games::{GamesReader, GamesSchema};
use super::lines::MAX_LINE;
use super::options::Format;
use super::table::{Rows, csv_reader, read_header, read_records};
use super::time::TimeParser;
use crate::history::{History, HistoryBuilder, PlayerId, SourceInfo};
use std::collections::BTreeMap;
use std::io::{BufRead, Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel, sync_channel};
use std::sync::{Mutex, OnceLock};

/// When and how finely a games CSV is parsed in parallel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// Inputs at least this long (in bytes, after decompression) are parsed in parallel.
    pub parallel_from: usize,
    /// The bytes of a piece (it ends at the first record boundary from there on).
    pub chunk: usize,
    /// The players a worker keeps from piece to piece at most: beyond, it begins again with
    /// none (an input of many players gains little from keeping them, and a worker's names
    /// stay a few MiB).
    pub worker_players: usize,
}

impl Sizes {
    /// A few pieces per thread of a file of a few MiB; a piece's results (a builder of about
    /// twice its bytes) times the pieces in flight stay a few MiB.
    pub const DEFAULT: Sizes = Sizes {
        parallel_from: 4 << 20,
        chunk: 256 << 10,
        worker_players: 1 << 17,
    };
}

#[cfg(test)]
thread_local! {
    /// The sizes of the reads on this thread (tests).
    pub(crate) static TEST_SIZES: std::cell::Cell<Option<Sizes>> =
        const { std::cell::Cell::new(None) };
}

/// The sizes to use: [`Sizes::DEFAULT`], or for tests the bytes in the environment variable
/// `RATE_BATCH_CSV_CHUNK` as both the size from which inputs are parsed in parallel and the
/// size of a piece (so that the whole test suite can be run through the parallel reader).
pub(crate) fn sizes() -> Sizes {
    #[cfg(test)]
    if let Some(s) = TEST_SIZES.with(std::cell::Cell::get) {
        return s;
    }
    match std::env::var("RATE_BATCH_CSV_CHUNK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        Some(n) if n > 0 => Sizes {
            parallel_from: n,
            chunk: n,
            ..Sizes::DEFAULT
        },
        _ => Sizes::DEFAULT,
    }
}

/// Where the CSV parser is with respect to quoting, as far as record boundaries go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quoting {
    /// At the start of a field (or of a record): a quote here opens a quoted field.
    FieldStart,
    /// In a field that did not begin with a quote: a quote is a plain byte.
    Unquoted,
    /// In a quoted field: a line feed is part of the field.
    Quoted,
    /// Just after a quote in a quoted field: a second quote is an escaped one, anything else
    /// closes the field.
    QuoteInQuoted,
}

/// Finds record boundaries in a CSV byte stream: line feeds outside quoted fields. It follows
/// the csv crate's parser as configured here (quote `"`, doubled to escape it, no escape
/// byte, no comments, records ended by CR, LF or CRLF): a quote opens a quoted field only as
/// the field's first byte, and a quoted field ends at a quote not followed by another.
#[derive(Clone, Debug)]
pub(crate) struct Scanner {
    delimiter: u8,
    state: Quoting,
}

impl Scanner {
    /// A scanner at the start of a record.
    pub(crate) fn new(delimiter: u8) -> Self {
        Self {
            delimiter,
            state: Quoting::FieldStart,
        }
    }

    fn ends_field(&self, c: u8) -> bool {
        c == self.delimiter || c == b'\r' || c == b'\n'
    }

    /// Goes through the next bytes of the stream; returns the position just after the last
    /// line feed in them that ends a record, if one does.
    pub(crate) fn scan(&mut self, b: &[u8]) -> Option<usize> {
        let mut last = None;
        let mut i = 0;
        while i < b.len() {
            match self.state {
                Quoting::Quoted => match memchr::memchr(b'"', &b[i..]) {
                    Some(k) => {
                        i += k + 1;
                        self.state = Quoting::QuoteInQuoted;
                    }
                    None => return last,
                },
                Quoting::QuoteInQuoted => {
                    let c = b[i];
                    i += 1;
                    self.state = if c == b'"' {
                        Quoting::Quoted
                    } else if self.ends_field(c) {
                        Quoting::FieldStart
                    } else {
                        Quoting::Unquoted
                    };
                    if c == b'\n' {
                        last = Some(i);
                    }
                }
                Quoting::FieldStart | Quoting::Unquoted => {
                    // The next quote that opens a quoted field: the line feeds before it end
                    // records.
                    let mut from = i;
                    let open = loop {
                        match memchr::memchr(b'"', &b[from..]) {
                            None => break None,
                            Some(k) => {
                                let q = from + k;
                                let opens = if q == i {
                                    self.state == Quoting::FieldStart
                                } else {
                                    self.ends_field(b[q - 1])
                                };
                                if opens {
                                    break Some(q);
                                }
                                from = q + 1;
                            }
                        }
                    };
                    let end = open.unwrap_or(b.len());
                    if let Some(k) = memchr::memrchr(b'\n', &b[i..end]) {
                        last = Some(i + k + 1);
                    }
                    if let Some(q) = open {
                        self.state = Quoting::Quoted;
                        i = q + 1;
                    } else {
                        if end > i {
                            self.state = if self.ends_field(b[end - 1]) {
                                Quoting::FieldStart
                            } else {
                                Quoting::Unquoted
                            };
                        }
                        return last;
                    }
                }
            }
        }
        last
    }
}

/// A piece of the records: its place among the pieces, the line feeds before it, its bytes.
struct Piece {
    index: usize,
    lines_before: u64,
    bytes: Vec<u8>,
}

/// Why the chunker stopped before the end of the input.
enum Stop {
    /// The input could not be read.
    Io(std::io::Error),
    /// A line longer than [`MAX_LINE`] (its number).
    TooLong(u64),
}

/// What the merger hears.
enum Msg {
    Parsed(Box<Parsed>),
    /// The chunker is done: the number of pieces, and why it stopped early if it did.
    End(usize, Option<Stop>),
    /// A worker panicked.
    Panicked(Box<dyn std::any::Any + Send>),
}

/// A piece read on its own.
struct Parsed {
    index: usize,
    /// The piece, kept when it may have to be parsed again (see [`Merger::merge`]).
    piece: Option<Piece>,
    /// Whether its time parser began with the column's reading of integers settled.
    seeded: bool,
    /// The worker whose players' ids it uses ([`FRESH`] for players of its own).
    worker: usize,
    /// Its contests (players by the worker's ids), and the players new to the worker.
    part: History,
    /// The worker's players it names, in the order of their first appearance in it.
    appeared: Vec<PlayerId>,
    /// Per contest kept: its line, and how many of `appeared` the piece had named by the end
    /// of its row.
    kept: Vec<(u64, u32)>,
    /// Its records, skipped ones and examples.
    source: SourceInfo,
    /// Its time column's parser, with what it saw.
    times: TimeParser,
    /// Its first error, which ended it.
    result: anyhow::Result<()>,
}

/// The worker of a piece parsed with players of its own (by the merger, again).
const FRESH: usize = usize::MAX;

/// A worker's players, kept from piece to piece (so that a name is interned once per worker,
/// not once per piece), until there are more than [`Sizes::worker_players`].
struct Table {
    builder: HistoryBuilder,
    appear: Appearances,
}

impl Table {
    fn new() -> Self {
        Self {
            builder: HistoryBuilder::new(),
            appear: Appearances::default(),
        }
    }
}

impl Parsed {
    fn rejected(&self) -> bool {
        self.source.skipped_invalid > 0 || self.result.is_err()
    }
}

/// What every piece is parsed with.
struct Shared<'a> {
    path: &'a Path,
    file: &'a str,
    opts: &'a super::options::IngestOptions,
    delimiter: u8,
    header: &'a [String],
    schema: GamesSchema,
    /// The time column's parser once it has settled how integers read (set by the merger).
    settled: OnceLock<TimeParser>,
    /// Set when the merger has stopped: the pieces left are not worth parsing.
    stop: AtomicBool,
    worker_players: usize,
}

impl Shared<'_> {
    /// Parses a piece with the players of `table` (of `worker`) and a time parser that
    /// begins as `times`.
    fn parse(
        &self,
        piece: Piece,
        times: TimeParser,
        seeded: bool,
        table: &mut Table,
        worker: usize,
    ) -> Parsed {
        table.appear.next_piece();
        let mut ctx = Context::for_piece(
            self.file.to_string(),
            self.opts,
            std::mem::take(&mut table.builder),
            std::mem::take(&mut table.appear),
        );
        let (reader, mut lines) =
            super::lines::counting_after(Cursor::new(&piece.bytes[..]), piece.lines_before);
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(self.delimiter)
            .flexible(true)
            .from_reader(reader);
        let mut rows = Rows::Games(GamesReader::with_times(self.schema.clone(), times));
        let mut kept = Vec::new();
        let result = read_records(
            &mut rdr,
            &mut lines,
            &mut rows,
            self.header,
            self.path,
            &mut ctx,
            &mut |ctx, at| {
                if ctx.builder.pending() > kept.len() {
                    let line = match at {
                        Location::Line(l) => *l,
                        _ => 0,
                    };
                    let named = ctx.appear.as_ref().map_or(0, |a| a.order.len());
                    kept.push((line, named as u32));
                }
                Ok(())
            },
        );
        drop(rdr);
        let Rows::Games(games) = rows else {
            unreachable!("a games reader")
        };
        let part = ctx.builder.take_part();
        table.builder = ctx.builder;
        table.appear = ctx.appear.take().unwrap_or_default();
        let mut parsed = Parsed {
            index: piece.index,
            piece: None,
            seeded,
            worker,
            part,
            appeared: std::mem::take(&mut table.appear.order),
            kept,
            source: ctx.source,
            times: games.times().clone(),
            result,
        };
        // Kept for a parse again only when the reading of integers could change its result.
        if !seeded && (parsed.times.settled() || parsed.rejected()) {
            parsed.piece = Some(piece);
        }
        parsed
    }

    /// A parser for a piece about to be parsed: the column's, once its reading is settled.
    fn times(&self) -> (TimeParser, bool) {
        match self.settled.get() {
            Some(t) => (TimeParser::continuing(t), true),
            None => (TimeParser::new(self.opts.time_format.clone()), false),
        }
    }
}

/// Reads a games CSV whose first bytes are `ahead` (at least its first line and a byte more)
/// and the rest `rest`, parsing on every core.
pub(crate) fn read(
    path: &Path,
    delimiter: u8,
    ahead: Vec<u8>,
    rest: Box<dyn BufRead + Send>,
    ctx: &mut Context,
    sizes: &Sizes,
) -> anyhow::Result<()> {
    debug_assert!(
        ctx.emit.is_none(),
        "a streamed rating pass is read on one thread"
    );
    // The header, read as the sequential reader reads it; where it ends, the records begin.
    let (mut rdr, mut lines) = csv_reader(delimiter, Cursor::new(&ahead[..]));
    let header = read_header(&mut rdr, &mut lines, Format::Games, ctx);
    let body = rdr.position().byte() as usize;
    drop(rdr);
    // Read on this thread: a header that may go on beyond what was read ahead, or records
    // whose players are mostly new (the merge would intern as often as one thread).
    let sequential = body >= ahead.len()
        || matches!(&header, Ok((_, Rows::Games(g)))
            if mostly_distinct(&ahead[body..], delimiter, g.schema().sides()));
    if sequential {
        return super::table::read_sequential(
            path,
            Format::Games,
            delimiter,
            Cursor::new(ahead).chain(rest),
            ctx,
        );
    }
    let (header, rows) = header?;
    let Rows::Games(games) = rows else {
        unreachable!("a games reader")
    };
    let lines_before = memchr::memchr_iter(b'\n', &ahead[..body]).count() as u64;
    let line_start = memchr::memrchr(b'\n', &ahead[..body]).map_or(0, |k| k + 1);
    let file = ctx.file.clone();
    let shared = Shared {
        path,
        file: &file,
        opts: ctx.opts,
        delimiter,
        header: &header,
        schema: games.schema().clone(),
        settled: OnceLock::new(),
        stop: AtomicBool::new(false),
        worker_players: sizes.worker_players,
    };
    let timed = games.schema().timed();
    let workers = rayon::current_num_threads().max(1);
    let in_flight = workers + 2;
    let mut merger = Merger {
        times: games.times().clone(),
        counting: ctx.builder.count().is_some(),
        known: (0..workers).map(|_| Known::default()).collect(),
        back: Vec::new(),
    };
    let (work_tx, work_rx) = channel::<Piece>();
    let work_rx = Mutex::new(work_rx);
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = channel::<Msg>();
        let (token_tx, token_rx) = sync_channel::<()>(in_flight);
        for _ in 0..in_flight {
            token_tx.send(()).expect("room for every token");
        }
        let chunker = Chunker {
            scanner: Scanner::new(delimiter),
            pending: ahead,
            start: body,
            lines_before,
            since_lf: body - line_start,
            chunk: sizes.chunk.max(1),
        };
        let done = done_tx.clone();
        let stop = &shared.stop;
        scope.spawn(move || chunker.run(rest, &work_tx, &token_rx, &done, stop));
        for worker in 0..workers {
            let (done, work_rx, shared) = (done_tx.clone(), &work_rx, &shared);
            let (back, returned) = channel();
            merger.back.push(back);
            scope.spawn(move || work(shared, worker, work_rx, &done, &returned));
        }
        drop(done_tx);
        let merged = merger.run(ctx, &shared, &done_rx, &token_tx);
        shared.stop.store(true, Ordering::Relaxed);
        // Dropping the channels' ends here lets every thread see that it is over.
        drop((done_rx, token_tx, std::mem::take(&mut merger.back)));
        merged
    })?;
    ctx.source.untimed |= !timed;
    ctx.source.time_format = Some(if timed {
        merger.times.reading()
    } else {
        super::games::UNTIMED.to_string()
    });
    Ok(())
}

/// Whether most of the sides in the first records (`sample`) are distinct: an input of many
/// players, each in few games. Parsed in pieces, its names would be interned twice as often as
/// sequentially (once by the worker that meets a name, once by the merger, which would do
/// about as much of it as the sequential reader does, alone), so it is read sequentially.
fn mostly_distinct(sample: &[u8], delimiter: u8, (a, b): (usize, usize)) -> bool {
    use std::hash::BuildHasher;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(sample);
    let mut seen = rustc_hash::FxHashSet::default();
    let mut sides = 0usize;
    let mut rec = csv::ByteRecord::new();
    while let Ok(true) = rdr.read_byte_record(&mut rec) {
        for side in [rec.get(a), rec.get(b)].into_iter().flatten() {
            sides += 1;
            seen.insert(rustc_hash::FxBuildHasher.hash_one(side));
        }
    }
    sides >= 1000 && seen.len() * 2 > sides
}

/// A worker: parses the pieces it is given until there are none or the merger has stopped.
fn work(
    shared: &Shared,
    worker: usize,
    queue: &Mutex<Receiver<Piece>>,
    done: &Sender<Msg>,
    returned: &Receiver<History>,
) {
    let mut table = Table::new();
    loop {
        // The arrays of a part merged, to keep the next one in.
        for part in returned.try_iter() {
            table.builder.reuse(part);
        }
        let next = queue.lock().map(|q| q.recv());
        let Ok(Ok(piece)) = next else {
            return;
        };
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        if table.builder.names().len() > shared.worker_players {
            let players = table.builder.names().len();
            table = Table::new();
            table.builder.reserve_players(players);
        }
        let (times, seeded) = shared.times();
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shared.parse(piece, times, seeded, &mut table, worker)
        }));
        let msg = match parsed {
            Ok(p) => Msg::Parsed(Box::new(p)),
            Err(panic) => Msg::Panicked(panic),
        };
        if done.send(msg).is_err() {
            return;
        }
    }
}

/// Cuts the input into pieces.
struct Chunker {
    scanner: Scanner,
    /// Bytes read and not yet sent, from `start` on (a record boundary).
    pending: Vec<u8>,
    start: usize,
    /// Line feeds before `start`.
    lines_before: u64,
    /// Bytes since the last line feed, up to the end of `pending`.
    since_lf: usize,
    chunk: usize,
}

impl Chunker {
    fn run(
        mut self,
        mut rest: Box<dyn BufRead + Send>,
        work: &Sender<Piece>,
        tokens: &Receiver<()>,
        done: &Sender<Msg>,
        stop: &AtomicBool,
    ) {
        let mut index = 0;
        // Scanned up to here, a window at a time; the last record boundary found.
        let mut scanned = self.start;
        let mut cut = None;
        let window = self.chunk.clamp(1, 1 << 16);
        let stopped = loop {
            if scanned < self.pending.len() {
                let to = self.pending.len().min(scanned + window);
                let new = &self.pending[scanned..to];
                let cut_before = cut;
                if let Some(c) = self.scanner.scan(new) {
                    cut = Some(scanned + c);
                }
                // A line too long (as the sequential reader's [`super::lines::Counting`]
                // finds it): one ended in the window by its first line feed, or one that
                // goes on past it.
                let first_lf = memchr::memchr(b'\n', new);
                let ended_too_long =
                    first_lf.is_some_and(|k| (self.since_lf + k) as u64 > MAX_LINE);
                self.since_lf = match memchr::memrchr(b'\n', new) {
                    Some(k) => new.len() - k - 1,
                    None => self.since_lf + new.len(),
                };
                if ended_too_long || self.since_lf as u64 > MAX_LINE {
                    // The sequential reader stops at such a line, having read the records
                    // before it. It began before this window (it is longer), in which no
                    // line feed comes before its end.
                    let line = self.lines_before
                        + memchr::memchr_iter(b'\n', &self.pending[self.start..scanned]).count()
                            as u64
                        + 1;
                    if let Some(c) = cut_before
                        && !self.send(c, &mut index, work, tokens)
                    {
                        return;
                    }
                    break Some(Stop::TooLong(line));
                }
                scanned = to;
                if let Some(c) = cut
                    && scanned - self.start >= self.chunk
                {
                    if !self.send(c, &mut index, work, tokens) {
                        return;
                    }
                    cut = None;
                }
                continue;
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
            // All scanned: the bytes not sent yet go to the front, and more are read.
            self.pending.drain(..self.start);
            // What was read ahead before the pieces began need not stay allocated (a long
            // line still pending keeps its buffer: shrinking it would copy it at every refill).
            let keep = self.chunk + (2 << 20);
            if self.pending.len() <= self.chunk && self.pending.capacity() > keep {
                self.pending.shrink_to(keep);
            }
            scanned -= self.start;
            cut = cut.map(|c| c - self.start);
            self.start = 0;
            match rest.fill_buf() {
                Ok([]) => {
                    let end = self.pending.len();
                    if end > 0 && !self.send(end, &mut index, work, tokens) {
                        return;
                    }
                    break None;
                }
                Ok(bytes) => {
                    let n = bytes.len();
                    self.pending.extend_from_slice(bytes);
                    rest.consume(n);
                }
                Err(e) => {
                    // The sequential reader reads every whole record before the failure
                    // first.
                    if let Some(c) = cut
                        && !self.send(c, &mut index, work, tokens)
                    {
                        return;
                    }
                    break Some(Stop::Io(e));
                }
            }
        };
        let _ = done.send(Msg::End(index, stopped));
    }

    /// Sends the pending bytes up to `end` as the next piece, once the merger has room for it;
    /// false when the merger has stopped.
    fn send(
        &mut self,
        end: usize,
        index: &mut usize,
        work: &Sender<Piece>,
        tokens: &Receiver<()>,
    ) -> bool {
        if tokens.recv().is_err() {
            return false;
        }
        let bytes = self.pending[self.start..end].to_vec();
        let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
        let piece = Piece {
            index: *index,
            lines_before: self.lines_before,
            bytes,
        };
        self.lines_before += lines;
        self.start = end;
        *index += 1;
        work.send(piece).is_ok()
    }
}

/// Merges the pieces' results in order into the read's context.
struct Merger {
    /// The time column's parser as the sequential reader's would be after the pieces merged.
    times: TimeParser,
    /// Whether the read's builder only counts.
    counting: bool,
    /// Per worker, its players as far as the merged pieces told them.
    known: Vec<Known>,
    /// Per worker, where the parts merged go back (their arrays are used again).
    back: Vec<Sender<History>>,
}

/// A worker's players (by its ids): their ids in the read's builder once a merged piece has
/// named them (`NONE` before). Their names are in the parts, which every player new to the
/// worker is first named by, except those of a part parsed again instead of merged, kept
/// here.
#[derive(Default)]
struct Known {
    ids: Vec<PlayerId>,
    unmerged: rustc_hash::FxHashMap<PlayerId, String>,
}

/// No id in the read's builder yet.
const NONE: PlayerId = PlayerId::MAX;

impl Known {
    /// Takes in the players new to the worker in a part (all of them when it began again).
    fn add(&mut self, part: &History) {
        if part.first_named() == 0 {
            self.ids.clear();
            self.unmerged.clear();
        }
        debug_assert_eq!(self.ids.len(), part.first_named());
        self.ids.resize(part.player_count(), NONE);
    }

    /// The same for a part that is not merged: its new players' names are kept.
    fn add_unmerged(&mut self, part: &History) {
        self.add(part);
        for (k, name) in part.names().iter().enumerate() {
            self.unmerged
                .insert((part.first_named() + k) as PlayerId, name.clone());
        }
    }
}

impl Merger {
    fn run(
        &mut self,
        ctx: &mut Context,
        shared: &Shared,
        done: &Receiver<Msg>,
        tokens: &std::sync::mpsc::SyncSender<()>,
    ) -> anyhow::Result<()> {
        let mut waiting: BTreeMap<usize, Box<Parsed>> = BTreeMap::new();
        let mut end: Option<(usize, Option<Stop>)> = None;
        let mut next = 0;
        loop {
            if let Some(parsed) = waiting.remove(&next) {
                self.merge(*parsed, ctx, shared)?;
                next += 1;
                let _ = tokens.try_send(());
                continue;
            }
            if let Some((pieces, stop)) = &mut end
                && *pieces == next
            {
                return match stop.take() {
                    None => Ok(()),
                    Some(Stop::TooLong(line)) => Err(ctx
                        .error(
                            Location::Line(line),
                            FieldError::whole(super::lines::LineTooLong { line }.to_string()),
                        )
                        .into()),
                    Some(Stop::Io(e)) => Err(super::table::cannot_read(shared.path, e.into())),
                };
            }
            match done.recv() {
                Ok(Msg::Parsed(p)) => {
                    waiting.insert(p.index, p);
                }
                Ok(Msg::End(pieces, stop)) => end = Some((pieces, stop)),
                Ok(Msg::Panicked(panic)) => std::panic::resume_unwind(panic),
                Err(_) => unreachable!("the chunker says when it is done"),
            }
        }
    }

    fn merge(&mut self, mut p: Parsed, ctx: &mut Context, shared: &Shared) -> anyhow::Result<()> {
        // A piece parsed before the column's reading of integers was known, whose result
        // could be another with it: parsed again with it, with players of its own. The
        // worker's players new in it are noted all the same (its ids go on from them).
        let mut fresh = Known::default();
        if !p.seeded
            && self.times.settled()
            && (p.times.settled_otherwise(&self.times) || p.rejected())
            && let Some(piece) = p.piece.take()
        {
            if !self.counting {
                self.known[p.worker].add_unmerged(&p.part);
            }
            let times = TimeParser::continuing(&self.times);
            p = shared.parse(piece, times, true, &mut Table::new(), FRESH);
            if !self.counting {
                fresh.add(&p.part);
            }
        } else if !self.counting {
            self.known[p.worker].add(&p.part);
        }
        let was_settled = self.times.settled();
        self.times.absorb(&p.times);
        if !was_settled && self.times.settled() {
            let _ = shared.settled.set(self.times.clone());
        }
        let known = if p.worker == FRESH {
            &mut fresh
        } else {
            &mut self.known[p.worker]
        };
        // The contests in runs that end where the sequential reader's `after_record` could do
        // something: after each contest when counting (time order's first break), else at the
        // end. The players a run's rows named are interned before it.
        let first = p.part.first_index();
        let (mut done, mut named) = (0, 0);
        while done < p.kept.len() {
            let end = if self.counting {
                done + 1
            } else {
                p.kept.len()
            };
            let (line, upto) = p.kept[end - 1];
            if !self.counting {
                intern(ctx, known, &p.part, &p.appeared[named..upto as usize]);
                named = upto as usize;
            }
            let base = ctx.builder.contest_count();
            ctx.builder
                .append(&p.part, first + done..first + end, &known.ids);
            // Each contest's own line (the record's after it marks only the unmarked).
            let file = ctx.source.origin_files.len();
            ctx.builder.mark_origins_each(
                base,
                p.kept[done..end]
                    .iter()
                    .map(|&(line, _)| super::errors::origin(file, &Location::Line(line))),
            );
            ctx.after_record(&Location::Line(line))?;
            done = end;
        }
        if !self.counting {
            intern(ctx, known, &p.part, &p.appeared[named..]);
        }
        let (src, from) = (&mut ctx.source, &p.source);
        src.records += from.records;
        src.skipped_invalid += from.skipped_invalid;
        src.skipped_unfinished += from.skipped_unfinished;
        for example in &from.skipped_examples {
            if src.skipped_examples.len() < super::context::SKIPPED_EXAMPLES {
                src.skipped_examples.push(example.clone());
            }
        }
        if let Some(back) = self.back.get(p.worker) {
            let _ = back.send(p.part);
        }
        p.result
    }
}

/// Gives the players a piece named (in order) their ids in the read's builder, where they have
/// none yet: each where the sequential reader would have interned it.
fn intern(ctx: &mut Context, known: &mut Known, part: &History, named: &[PlayerId]) {
    for &p in named {
        let id = &mut known.ids[p as usize];
        if *id == NONE {
            let name = if p as usize >= part.first_named() {
                part.name(p)
            } else {
                &known.unmerged[&p]
            };
            *id = ctx.builder.player(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::options::IngestOptions;
    use std::path::PathBuf;

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Runs `f` with the reads on this thread parsed in pieces of `chunk` bytes (sequentially
    /// for `None`) on `threads` workers.
    fn with<T: Send>(chunk: Option<usize>, threads: usize, f: impl FnOnce() -> T + Send) -> T {
        // Small pieces on few workers keep few players; large ones the default.
        let sizes = chunk.map_or(
            Sizes {
                parallel_from: usize::MAX,
                ..Sizes::DEFAULT
            },
            |chunk| Sizes {
                parallel_from: 1,
                chunk,
                worker_players: if threads < 3 { chunk.min(4) } else { 1 << 17 },
            },
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let before = TEST_SIZES.with(|s| s.replace(Some(sizes)));
            let out = f();
            TEST_SIZES.with(|s| s.set(before));
            out
        })
    }

    /// Everything a history holds, as text.
    fn dump(h: &History) -> String {
        let mut out = format!(
            "first {} named from {}: {:?}\nsource {:?}\n",
            h.first_index(),
            h.first_named(),
            h.names(),
            h.source
        );
        for c in h.contests() {
            out.push_str(&format!(
                "{} t{} w{} s{:?}:",
                c.index(),
                c.time(),
                c.weight(),
                c.series().map(|s| h.series_name(s))
            ));
            for e in c.entries() {
                out.push_str(&format!(
                    " {:?} {}..{} {:?};",
                    e.players, e.lo, e.hi, e.score
                ));
            }
            out.push('\n');
        }
        out
    }

    /// A whole read and a counting pass of a games file, as text (or their errors). (A streamed
    /// read's rating pass is read on one thread: nothing to compare.)
    fn reads(path: &Path, opts: &IngestOptions) -> [String; 2] {
        let whole = match crate::ingest::ingest_as(path, Format::Games, opts) {
            Ok(h) => dump(&h),
            Err(e) => format!("error: {e:#}"),
        };
        let counted = match crate::ingest::stream::count(path, Format::Games, opts, Some(1)) {
            Ok(c) => format!("{:?} {:?} {:?}", c.count, c.disorder_at, c.source),
            Err(e) => format!("error: {e:#}"),
        };
        [whole, counted]
    }

    /// Reads `path` sequentially, then in pieces of several sizes on 1 to 3 workers: the same
    /// results every time.
    fn same_in_pieces(path: &Path, opts: &IngestOptions) -> [String; 2] {
        let want = with(None, 1, || reads(path, opts));
        for (chunk, threads) in [(1, 2), (7, 3), (64, 2), (300, 1), (4096, 2), (1 << 20, 2)] {
            let got = with(Some(chunk), threads, || reads(path, opts));
            for (w, g) in want.iter().zip(&got) {
                if w != g {
                    let at = w
                        .lines()
                        .zip(g.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    panic!(
                        "pieces of {chunk} bytes on {threads} threads differ at line {at}:\n{}\n{}",
                        w.lines().nth(at).unwrap_or(""),
                        g.lines().nth(at).unwrap_or("")
                    );
                }
            }
        }
        want
    }

    fn opts(skip_invalid: bool) -> IngestOptions {
        IngestOptions {
            skip_invalid,
            ..IngestOptions::default()
        }
    }

    /// Rows of every kind: quoted names with delimiters, quotes and line feeds, stray quotes,
    /// CRLF and LF, blank lines, unplayed games, teams, and (with `bad`) invalid rows.
    fn games(rows: usize, seed: u64, bad: bool) -> Vec<u8> {
        let mut rng = Rng(seed);
        let mut out = b"time,a,b,result,weight\r\n".to_vec();
        let names = [
            "ann",
            "bob",
            "Smith, John",
            "two\nlines",
            "\"hi\" he said",
            "o\"brien",
            "zoe\u{308}",
            "eve",
            "cr\r\nlf",
            "dan",
        ];
        // As a CSV writer writes a field, except that a quote inside is left as it is.
        let quoted = |f: &str| {
            if f.contains([',', '\r', '\n']) || f.starts_with('"') {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f.to_string()
            }
        };
        let mut t = 1_600_000_000i64;
        for _ in 0..rows {
            t += rng.below(30_000) as i64;
            let time = crate::time::format_time(t);
            let x = rng.below(10) as usize;
            let mut y = rng.below(10) as usize;
            if !bad && (y == x || y == (x + 1) % 10) {
                y = (x + 5) % 10;
            }
            let (a, b) = if rng.below(8) == 0 {
                (
                    format!("{}+{}", names[x], names[(x + 1) % 10]),
                    names[y].to_string(),
                )
            } else {
                (names[x].to_string(), names[y].to_string())
            };
            let (a, b) = (quoted(&a), quoted(&b));
            let result = ["1", "0", "0.5", "1-0", "NA", ""][rng.below(6) as usize];
            let mut row = format!("{time},{a},{b},{result},").into_bytes();
            if bad {
                match rng.below(40) {
                    0 => row = format!("{time},{a},{b},2-0,").into_bytes(),
                    1 => row = format!("{time},{a},{b}").into_bytes(),
                    2 => row = format!("2021-13-01,{a},{b},1,").into_bytes(),
                    3 => row = format!("{time},{a},,1,").into_bytes(),
                    4 => {
                        row = format!("{time},").into_bytes();
                        row.push(0xff);
                        row.extend_from_slice(format!("{a},{b},1,").as_bytes());
                    }
                    5 => row = format!("{time},{a},{b},1,0").into_bytes(),
                    _ => {}
                }
            }
            out.extend_from_slice(&row);
            out.extend_from_slice(match rng.below(12) {
                0 => b"\r\n",
                1 => b"\n\n",
                2 => b"\n  \n",
                _ => b"\n",
            });
        }
        out
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn the_scanner_finds_the_boundaries_the_csv_parser_sees() {
        let mut rng = Rng(7);
        let alphabet = b"a,;\"\r\n";
        for _ in 0..3000 {
            let n = rng.below(40) as usize;
            let text: Vec<u8> = (0..n)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            let records = |b: &[u8]| -> Vec<Vec<Vec<u8>>> {
                let mut r = csv::ReaderBuilder::new()
                    .has_headers(false)
                    .flexible(true)
                    .from_reader(b);
                r.byte_records()
                    .map(|x| x.unwrap().iter().map(<[u8]>::to_vec).collect())
                    .collect()
            };
            // Without quotes, the cut is after the last line feed: the scanner finds cuts.
            if !text.contains(&b'"') {
                let last = memchr::memrchr(b'\n', &text).map(|k| k + 1);
                assert_eq!(Scanner::new(b',').scan(&text), last, "{text:?}");
            }
            // Every cut the scanner allows, fed in two parts, splits the records in two.
            for split in 0..=n {
                let mut s = Scanner::new(b',');
                let first = s.scan(&text[..split]);
                let second = s.scan(&text[split..]).map(|c| c + split);
                for cut in [first, second].into_iter().flatten() {
                    let mut both = records(&text[..cut]);
                    both.extend(records(&text[cut..]));
                    assert_eq!(both, records(&text), "{text:?} cut at {cut}");
                }
            }
        }
    }

    /// `n` games `PREFIXdd,p_,q_,1` on days 1 to 28 of the month `prefix` begins, among 5 and 7
    /// players.
    fn day_rows(prefix: &str, n: usize) -> String {
        (0..n)
            .map(|i| format!("{prefix}{:02},p{},q{},1\n", i % 28 + 1, i % 5, i % 7))
            .collect()
    }

    #[test]
    fn inputs_of_mostly_new_players_are_told() {
        let rows = |players: usize| {
            let mut t = String::new();
            for i in 0..2000 {
                t.push_str(&format!(
                    "2020-01-01,p{},p{},1\n",
                    i % players,
                    (i * 7 + 1) % players
                ));
            }
            t
        };
        assert!(mostly_distinct(rows(100_000).as_bytes(), b',', (1, 2)));
        assert!(!mostly_distinct(rows(500).as_bytes(), b',', (1, 2)));
        // Too few records to tell: parsed in pieces.
        assert!(!mostly_distinct(b"2020-01-01,a,b,1\n", b',', (1, 2)));
    }

    #[test]
    fn pieces_read_as_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let clean = write(dir.path(), "clean.csv", &games(400, 1, false));
        let [whole, ..] = same_in_pieces(&clean, &opts(false));
        assert!(whole.contains("records: 400"), "{whole}");
        // Players known before (a resumed replay's), names trimmed, no teams.
        let known = IngestOptions {
            known_players: vec!["eve".into(), "nobody".into(), "ann".into()],
            trim_names: true,
            ..opts(true)
        };
        let [whole, ..] = same_in_pieces(&clean, &known);
        assert!(whole.contains(r#"["eve", "nobody", "ann""#), "{whole}");
        let solo = IngestOptions {
            team_separator: crate::ingest::TeamSeparator::None,
            ..opts(true)
        };
        same_in_pieces(&clean, &solo);
        let bad = write(dir.path(), "bad.csv", &games(400, 2, true));
        let [whole, counted] = same_in_pieces(&bad, &opts(true));
        assert!(!whole.starts_with("error"), "{whole}");
        assert!(!whole.contains("skipped_invalid: 0,"), "{whole}");
        assert!(counted.contains("line"), "{counted}");
        // Strict: the first bad row, wherever it is.
        for seed in 3..9 {
            let bad = write(dir.path(), "strict.csv", &games(300, seed, true));
            let [whole, ..] = same_in_pieces(&bad, &opts(false));
            assert!(whole.starts_with("error: "), "{whole}");
        }
    }

    #[test]
    fn integers_read_as_the_first_one_reads_across_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::from("time,a,b,result\n");
        text.push_str(&day_rows("2020-01-", 200));
        text.push_str(&day_rows("202101", 200));
        let dates = write(dir.path(), "dates.csv", text.as_bytes());
        let [whole, ..] = same_in_pieces(&dates, &opts(false));
        assert!(
            whole.contains("YYYYMMDD dates (the first: 20210101)"),
            "{whole}"
        );
        // One later integer that reads otherwise: refused, as sequentially.
        let mut odd = text.clone();
        odd.push_str("1609459200,p1,q1,1\n");
        odd.push_str(&day_rows("202102", 100));
        let odd = write(dir.path(), "odd.csv", odd.as_bytes());
        let [whole, ..] = same_in_pieces(&odd, &opts(false));
        assert!(whole.contains("first integer `20210101`"), "{whole}");
        let [whole, ..] = same_in_pieces(&odd, &opts(true));
        assert!(whole.contains("skipped_invalid: 1,"), "{whole}");
        // Seconds first, then a date: ambiguous.
        let mut secs = text.replace("202101", "");
        secs.push_str("1609459200,p1,q1,1\n20210102,p1,q2,1\n");
        for i in 0..300 {
            secs.push_str(&format!("{},p{},q{},1\n", 1_700_000_000 + i, i % 5, i % 7));
        }
        let secs = write(dir.path(), "secs.csv", secs.as_bytes());
        let [whole, ..] = same_in_pieces(&secs, &opts(true));
        assert!(whole.contains("ambiguous"), "{whole}");
        // Seconds first, then dates (refused as ambiguous) whose players come again later
        // with seconds: a piece that first read the dates as dates named those players, and
        // is read again without them.
        let mut later = String::from("time,a,b,result\n1700000000,s,t,1\n");
        for i in 0..120 {
            later.push_str(&format!("202301{:02},d{},e{},1\n", i % 28 + 1, i, i / 2));
        }
        for i in 0..120 {
            later.push_str(&format!(
                "{},d{},e{},0\n",
                1_700_000_100 + i,
                119 - i,
                i / 3
            ));
        }
        let later = write(dir.path(), "later.csv", later.as_bytes());
        let [whole, ..] = same_in_pieces(&later, &opts(true));
        assert!(whole.contains("skipped_invalid: 120,"), "{whole}");
    }

    #[test]
    fn unreadable_and_overlong_input_fails_as_sequentially() {
        let dir = tempfile::tempdir().unwrap();
        let text = games(3000, 11, false);
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, &text).unwrap();
        let gz = e.finish().unwrap();
        let whole = write(dir.path(), "g.csv.gz", &gz);
        same_in_pieces(&whole, &opts(true));
        let cut = write(dir.path(), "cut.csv.gz", &gz[..gz.len() * 2 / 3]);
        let [whole, ..] = same_in_pieces(&cut, &opts(true));
        assert!(whole.contains("damaged or cut short"), "{whole}");
        let mut long = games(50, 12, false);
        long.extend(std::iter::repeat_n(b'x', (MAX_LINE + 10) as usize));
        long.extend_from_slice(b"\n2021-01-01,a,b,1,\n");
        let long = write(dir.path(), "long.csv", &long);
        let o = opts(true);
        let want = with(None, 1, || reads(&long, &o));
        let got = with(Some(4096), 2, || reads(&long, &o));
        assert_eq!(want, got);
        assert!(want[0].contains("longer than 16 MiB"), "{}", want[0]);
    }
}
