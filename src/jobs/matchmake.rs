//! `matchmake`: pairs the waiting players of a pool with the ratings of a saved state, by
//! Yuksel's matchmaking ([`crate::matchmake`]), and writes the pairs.

use super::errors::UsageError;
use crate::history::PlayerId;
use crate::ingest::InputError;
use crate::matchmake::{desired_opponent, desired_probability, group_pairs};
use std::sync::Arc;

/// The matchmaking's options.
#[derive(Clone, Debug, clap::Args)]
pub struct MatchJob {
    /// A state written by `replay --save-state` (any system).
    #[arg(long, value_name = "FILE")]
    pub state: std::path::PathBuf,
    /// The waiting players: a CSV with a `player` column.
    #[arg(long, value_name = "FILE")]
    pub pool: std::path::PathBuf,
    /// n: the recent games the win rate is kept on target over (at most 16 are stored).
    #[arg(long, default_value_t = 5)]
    pub window: usize,
    /// lambda: the target win rate.
    #[arg(long, default_value_t = 0.5)]
    pub target: f64,
    /// delta_p: the acceptable opponents' window in win probability.
    #[arg(long, default_value_t = 0.05)]
    pub delta_p: f64,
    /// Swap players at most this many places in the sorted list, to vary the pairs.
    #[arg(long, default_value_t = 0)]
    pub shuffle: usize,
    /// Seed of the shuffle.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output CSV of the pairs.
    #[arg(long, default_value = "output/pairs.csv")]
    pub out: std::path::PathBuf,
    /// A waiting player the state does not know: an error listing them (`error`), or a
    /// newcomer at the system's starting rating (`newcomer`).
    #[arg(long, value_enum, default_value_t = Unknown::Error)]
    pub unknown: Unknown,
    /// A CSV `alias,player`: waiting players named by an alias are found under their
    /// player's name (as `replay --aliases` rated them).
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<std::path::PathBuf>,
    /// Print nothing on success.
    #[arg(long)]
    pub quiet: bool,
}

/// What `matchmake` makes of a waiting player the state does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Unknown {
    /// An error listing every unknown name (a misspelt name is not silently a newcomer).
    Error,
    /// A newcomer, at the system's starting rating.
    Newcomer,
}

/// One waiting player's numbers.
#[derive(Clone, Debug, PartialEq)]
struct Wish {
    name: String,
    rating: f64,
    /// Desired win probability (equations 24-25).
    p: f64,
    /// Desired opponent rating and its acceptable window.
    desired: f64,
    low: f64,
    high: f64,
}

/// A waiting player and the opponent found (None: the odd one out waits), with the system's
/// probability that each side wins (a draw counting half; NaN where the system has none).
struct Planned {
    a: Wish,
    b: Option<Wish>,
    p_wins: [f64; 2],
}

/// The pairs of the waiting players `names` (`ids`: each one's player in the state, if it
/// knows him), by the ratings of the state.
struct Plan<'a> {
    state: &'a crate::state::StateFile,
    names: &'a [String],
    ids: &'a [Option<PlayerId>],
    job: &'a MatchJob,
}

impl crate::systems::SystemVisitor for Plan<'_> {
    type Output = Result<Vec<Planned>, String>;
    fn visit<S: crate::systems::RatingSystem>(self, system: &S) -> Self::Output {
        let carry = self.state.carry::<S::Player>()?;
        crate::state::check_values(system, &self.state.meta, &carry)?;
        let job = self.job;
        let mut states = Vec::new();
        let mut wishes = Vec::new();
        for (name, id) in self.names.iter().zip(self.ids) {
            let (state, recent, played) = match id.map(|i| i as usize) {
                Some(i) => (
                    carry.states[i].clone(),
                    carry.records[i].recent_results(job.window),
                    carry.records[i].contests as usize,
                ),
                None => (system.new_player(), Vec::new(), 0),
            };
            let p = desired_probability(job.target, job.window, &recent, played);
            let at = |q: f64| desired_opponent(system, &state, q, 1e-9);
            wishes.push(Wish {
                name: crate::history::canonical_name(name).into_owned(),
                rating: system.rating(&state).mean,
                p,
                desired: at(p),
                low: at(p + job.delta_p),
                high: at(p - job.delta_p),
            });
            states.push(state);
        }
        let keyed: Vec<(PlayerId, f64)> = wishes
            .iter()
            .enumerate()
            .map(|(i, w)| (i as PlayerId, w.desired))
            .collect();
        let (pairs, left) = group_pairs(&keyed, job.shuffle, job.seed);
        let wins = |x: PlayerId, y: PlayerId| {
            system
                .win_probability(&states, &[x], &[y])
                .unwrap_or(f64::NAN)
        };
        let mut out: Vec<Planned> = pairs
            .iter()
            .map(|&(a, b)| Planned {
                a: wishes[a as usize].clone(),
                b: Some(wishes[b as usize].clone()),
                p_wins: [wins(a, b), wins(b, a)],
            })
            .collect();
        out.extend(left.map(|l| Planned {
            a: wishes[l as usize].clone(),
            b: None,
            p_wins: [f64::NAN; 2],
        }));
        Ok(out)
    }
}

/// Runs `matchmake`: pairs the waiting players and writes the pairs.
pub fn run_matchmake(job: &MatchJob, stdout: &mut dyn std::io::Write) -> anyhow::Result<()> {
    use anyhow::Context as _;
    if job.window > crate::replay::RECENT {
        let (window, kept) = (job.window, crate::replay::RECENT);
        let why = format!("--window {window}: at most {kept} recent results are kept per player");
        return Err(UsageError(why).into());
    }
    let inputs = [("--state", &job.state), ("--pool", &job.pool)].into_iter();
    let inputs = inputs.chain(job.aliases.as_ref().map(|p| ("--aliases", p)));
    let inputs = inputs.map(|(what, p)| (what, p.as_path()));
    super::load::refuse_overwriting(("--out", &job.out, "the pairs"), inputs)?;
    let aliases = (job.aliases.as_deref())
        .map(crate::ingest::aliases::read_aliases)
        .transpose()?;
    if job.window == 0 || !(0.0..=1.0).contains(&job.target) || !(0.0..).contains(&job.delta_p) {
        let why = "--window must be at least 1, --target within [0, 1], --delta-p at least 0";
        return Err(UsageError(why.into()).into());
    }
    let bad = |file: &std::path::Path, message| {
        InputError::whole_file(file.display().to_string(), message)
    };
    let mut f = crate::output::open_no_follow(&job.state)
        .with_context(|| format!("cannot read the state {}", job.state.display()))?;
    let state = crate::state::StateFile::read(&mut f).map_err(|e| bad(&job.state, e))?;
    let kind = crate::systems::SystemKind::from_name(&state.meta.system).ok_or_else(|| {
        UsageError(format!(
            "unknown system `{}` in the state",
            state.meta.system
        ))
    })?;
    let params: crate::systems::ParamMap = serde_json::from_str(&state.meta.params)
        .map_err(|e| UsageError(format!("the state's parameters: {e}")))?;
    let names = read_pool(&job.pool)?;
    let index =
        crate::history::NameIndex::new(&state.meta.players).with_aliases(aliases.map(Arc::new));
    let ids: Vec<Option<PlayerId>> = names.iter().map(|n| index.find(n)).collect();
    let unknown: Vec<String> = names
        .iter()
        .zip(&ids)
        .filter(|(_, id)| id.is_none())
        .map(|(n, _)| format!("`{n}`"))
        .collect();
    if job.unknown == Unknown::Error && !unknown.is_empty() {
        const SHOWN: usize = 10;
        let mut list = unknown[..unknown.len().min(SHOWN)].to_vec();
        if unknown.len() > SHOWN {
            list.push(format!("and {} more", unknown.len() - SHOWN));
        }
        let message = format!(
            "{} waiting player{} the state does not know: {} (misspelt? --unknown newcomer \
             rates them as newcomers)",
            unknown.len(),
            if unknown.len() == 1 { "" } else { "s" },
            list.join(", ")
        );
        return Err(bad(&job.pool, message).into());
    }
    // Two waiting names that find one player (` Foo ` and `Foo`) would pair him with himself.
    let mut found = std::collections::HashMap::new();
    for (n, id) in names.iter().zip(&ids) {
        if let Some(id) = *id
            && let Some(first) = found.insert(id, n)
        {
            let player = &state.meta.players[id as usize];
            let message = format!(
                "`{first}` and `{n}` are the same player of the state (`{player}`): waiting twice"
            );
            return Err(bad(&job.pool, message).into());
        }
    }
    let plan = Plan {
        state: &state,
        names: &names,
        ids: &ids,
        job,
    };
    let plan = crate::systems::dispatch(kind, &params, plan)
        .map_err(UsageError)?
        .map_err(|e| bad(&job.state, e))?;
    crate::output::write_one(&job.out, |w| write_pairs(w, &plan))
        .with_context(|| format!("cannot write {}", job.out.display()))?;
    if !job.quiet {
        let paired = plan.iter().filter(|p| p.b.is_some()).count();
        writeln!(
            stdout,
            "{paired} pairs of {} waiting players ({} state, window {}, target {}), written to {}",
            names.len(),
            state.meta.system,
            job.window,
            job.target,
            job.out.display()
        )?;
    }
    Ok(())
}

/// Reads a matchmaking pool: a CSV with a `player` column, no name twice.
pub fn read_pool(path: &std::path::Path) -> Result<Vec<String>, InputError> {
    let csv = crate::ingest::small_csv::SmallCsv::open(path)?;
    let col = csv.require("player", "a column player")?;
    let mut names: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    csv.for_each(col, |csv, line, name, _| {
        if !seen.insert(crate::history::canonical_name(name).into_owned()) {
            return Err(csv.error(
                line,
                Some("player"),
                format!("player `{name}` is waiting twice"),
            ));
        }
        names.push(name.to_string());
        Ok(())
    })?;
    Ok(names)
}

/// The pairs as CSV: each side's rating, desired win probability and opponent, whether each
/// is in the other's window, and the system's probability that each wins.
fn write_pairs(w: &mut dyn std::io::Write, plan: &[Planned]) -> std::io::Result<()> {
    writeln!(
        w,
        "player_a,player_b,rating_a,rating_b,desired_p_a,desired_p_b,desired_opponent_a,\
         desired_opponent_b,a_in_window_of_b,b_in_window_of_a,p_a_wins,p_b_wins"
    )?;
    let q = |s: &str| {
        let mut out = String::new();
        crate::output::csv_field(s, &mut out);
        out
    };
    for Planned { a, b, p_wins } in plan {
        let inside = |x: &Wish, r: f64| x.low <= r && r <= x.high;
        let line = match b {
            // The odd one out waits.
            None => format!("{},,{},,{},,{},,,,,", q(&a.name), a.rating, a.p, a.desired),
            Some(b) => format!(
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                q(&a.name),
                q(&b.name),
                a.rating,
                b.rating,
                a.p,
                b.p,
                a.desired,
                b.desired,
                inside(b, a.rating),
                inside(a, b.rating),
                p_wins[0],
                p_wins[1]
            ),
        };
        writeln!(w, "{line}")?;
    }
    Ok(())
}
