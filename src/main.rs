use clap::Parser;
use rate_batch::cli::{Cli, run};
use rate_batch::run::exit_code;

fn main() {
    // A panic is a bug, but it must end the process: printed as usual, then exit 101 at once,
    // so that no thread left waiting (the history writer, rayon's pool) can keep it alive.
    // Temporary output files it leaves are removed by the next run; outputs are untouched.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::exit(101);
    }));
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let json = cli.log_json();
    if let Err(e) = run(cli, &mut out) {
        let code = exit_code(&e);
        if json {
            let doc = serde_json::json!({
                "status": "error",
                "exit_code": code,
                "error": format!("{e:#}"),
            });
            eprintln!("{doc}");
        } else {
            // One line: the cause chain joined, outermost first.
            eprintln!("error: {e:#}");
        }
        std::process::exit(code);
    }
}
