//! `names`: the names of a history that look like one player written several ways
//! ([`crate::names::likely_duplicates`]), as a CSV to check by hand and give back as
//! `--aliases` (its `alias` and `player` columns are what that file reads; the other columns
//! say why and how much each spelling played).

use crate::history::History;
use crate::ingest::IngestOptions;
use std::io::Write;
use std::path::PathBuf;

/// What `names` does.
pub struct NamesJob {
    /// The input (further files in `ingest.more`).
    pub input: PathBuf,
    /// How to read it (aliases already given are applied: their names are merged).
    pub ingest: IngestOptions,
    /// The CSV's file; standard output without one.
    pub out: Option<PathBuf>,
    /// No summary.
    pub quiet: bool,
    /// Suggest surnames one edit apart too (`--one-edit`).
    pub one_edit: bool,
}

/// Reads the input, finds the likely duplicates, writes the CSV and a summary.
pub fn run_names(job: &NamesJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    if let Some(out) = &job.out {
        let inputs = super::load::input_files(&job.input, &job.ingest);
        super::load::refuse_overwriting(("--out", out, "the list"), inputs)?;
    }
    let history = crate::ingest::ingest(&job.input, &job.ingest)?;
    let contests = contests_per_player(&history);
    let found = crate::names::likely_duplicates(history.names(), &contests, job.one_edit);
    let write = |w: &mut dyn Write| write_csv(w, &history, &contests, &found);
    match &job.out {
        Some(path) => crate::output::write_one(path, write)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?,
        None => write(stdout)?,
    }
    if !job.quiet {
        let groups: std::collections::HashSet<u32> = found.iter().map(|s| s.player).collect();
        let ambiguous = found
            .iter()
            .filter(|s| !s.ambiguous_with.is_empty())
            .count();
        let summary = format!(
            "{} names; {} look like another player's spelling, in {} groups ({} ambiguous: \
             choose); check them and give the file back with --aliases",
            history.names().len(),
            found.len(),
            groups.len(),
            ambiguous
        );
        // On standard error when the CSV goes to standard output.
        if job.out.is_some() {
            writeln!(stdout, "{summary}")?;
        } else {
            eprintln!("{summary}");
        }
    }
    Ok(())
}

/// Contests each player took part in.
fn contests_per_player(history: &History) -> Vec<u32> {
    let mut n = vec![0u32; history.names().len()];
    for c in history.contests() {
        for e in c.entries() {
            for &p in e.players {
                n[p as usize] = n[p as usize].saturating_add(1);
            }
        }
    }
    n
}

/// The CSV: each suggested alias, its player, why, how much each spelling played, and the
/// other players the alias could be.
fn write_csv(
    w: &mut dyn Write,
    history: &History,
    contests: &[u32],
    found: &[crate::names::Suggestion],
) -> std::io::Result<()> {
    let field = |s: &str| {
        let mut out = String::new();
        crate::output::csv_field(s, &mut out);
        out
    };
    w.write_all(b"alias,player,reason,alias_contests,player_contests,also_matches\n")?;
    for s in found {
        let also: Vec<&str> = s.ambiguous_with.iter().map(|&p| history.name(p)).collect();
        writeln!(
            w,
            "{},{},{},{},{},{}",
            field(history.name(s.alias)),
            field(history.name(s.player)),
            field(s.why.as_str()),
            contests[s.alias as usize],
            contests[s.player as usize],
            field(&also.join(" | "))
        )?;
    }
    Ok(())
}
