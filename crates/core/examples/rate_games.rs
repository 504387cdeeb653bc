//! Rates a few games with Glicko-2 and prints the leaderboard: `cargo run -p rate-batch-core --example rate_games`.
use rate_batch_core::{
    rater::Rater,
    systems::glicko2::{Glicko2, Glicko2Params},
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rater = Rater::new(Glicko2::new(Glicko2Params::default())?);
    for (a, b, score) in [("ann", "bob", 1.0), ("bob", "cy", 0.5), ("cy", "ann", 0.0)] {
        rater.rate_game(a, b, score)?;
    }
    for (name, r) in rater.leaderboard() {
        println!(
            "{name:>4} {:7.1} ± {:5.1}",
            r.mean,
            r.uncertainty.unwrap_or(0.0)
        );
    }
    Ok(())
}
