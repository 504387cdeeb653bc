//! Reads a history file with rate-batch's readers and replays it through Elo-MMR, as a library:
//! `cargo run --example replay_file -- datasets/chess-league.csv`.
use rate_batch::ingest::{IngestOptions, ingest};
use rate_batch::replay::{ReplayOptions, replay};
use rate_batch::systems::elo_mmr::{EloMmr, EloMmrParams};

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or("datasets/chess-league.csv".into());
    let history = ingest(path.as_ref(), &IngestOptions::default())?;
    let result = replay(
        &history,
        &EloMmr::new(EloMmrParams::default())?,
        &ReplayOptions::default(),
    )?;
    let best = (0..history.player_count())
        .max_by(|&a, &b| result.ratings[a].mean.total_cmp(&result.ratings[b].mean));
    let best = best.expect("a history has players") as u32;
    println!(
        "{} contests; best: {} at {:.1}",
        history.len(),
        history.name(best),
        result.ratings[best as usize].mean
    );
    println!("pair inversion {:?} %", result.metrics.all.pair_inversion);
    Ok(())
}
