use rate_batch::jobs::exit_code;
use rate_batch_lab::cli::{Cli, run};

fn main() {
    // A panic is a bug, but it must end the process: printed as usual, then exit 101 at once,
    // so that no thread left waiting (rayon's pool) can keep it alive.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::exit(101);
    }));
    let matches = rate_batch_lab::cli::command_with_defaults().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Err(e) = run(cli, &mut out) {
        // One line: the cause chain joined, outermost first; the product's exit codes.
        eprintln!("error: {e:#}");
        std::process::exit(exit_code(&e));
    }
}
