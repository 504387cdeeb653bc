use clap::Parser;
use rate_batch::cli::{Cli, run};
use rate_batch::run::exit_code;

fn main() {
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
