use clap::Parser;
use rate_batch::cli::{Cli, run};
use rate_batch::run::exit_code;

fn main() {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Err(e) = run(cli, &mut out) {
        // One line: the cause chain joined, outermost first.
        eprintln!("error: {e:#}");
        std::process::exit(exit_code(&e));
    }
}
