//! The generated reference stays true to the command line: `docs/cli.md` (clap-markdown) and
//! the man pages in `docs/man/` (clap_mangen) are made from the clap definitions, and this
//! test fails when they are stale. `UPDATE_DOCS=1 cargo test --test docs` writes them again.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every generated file, by path under the root, with its text.
fn generated() -> Vec<(PathBuf, Vec<u8>)> {
    let cmd = rate_batch::cli::command_with_defaults();
    let options = clap_markdown::MarkdownOptions::new()
        .title("rate-batch command-line reference".to_string())
        .show_footer(false);
    let mut md = String::from(
        "<!-- Generated from the clap definitions by tests/docs.rs: \
         UPDATE_DOCS=1 cargo test --test docs -->\n\n",
    );
    md.push_str(&clap_markdown::help_markdown_command_custom(&cmd, &options));
    let mut files = vec![(PathBuf::from("docs/cli.md"), md.into_bytes())];
    let mut page = |cmd: clap::Command, name: String| {
        let mut roff = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut roff).unwrap();
        files.push((PathBuf::from(format!("docs/man/{name}.1")), roff));
    };
    page(cmd.clone(), "rate-batch".into());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("rate-batch-{}", sub.get_name());
        // (clap's names are static strings: a few bytes leaked, once, in a test.)
        let name: &'static str = Box::leak(name.into_boxed_str());
        page(sub.clone().name(name), name.to_string());
    }
    files
}

#[test]
fn generated_reference_is_up_to_date() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    let files = generated();
    for (path, text) in &files {
        let full = root().join(path);
        if update {
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, text).unwrap();
        } else if std::fs::read(&full).ok().as_deref() != Some(text.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    // No page of a subcommand that is gone.
    for entry in std::fs::read_dir(root().join("docs/man")).unwrap() {
        let path = Path::new("docs/man").join(entry.unwrap().file_name());
        if !files.iter().any(|(p, _)| *p == path) {
            if update {
                std::fs::remove_file(root().join(&path)).unwrap();
            } else {
                stale.push(format!("{} (no such subcommand)", path.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated reference: {}; run `UPDATE_DOCS=1 cargo test --test docs`",
        stale.join(", ")
    );
    let md = std::str::from_utf8(&files[0].1).unwrap();
    assert!(md.contains("## `rate-batch replay`"), "{}", &md[..500]);
    assert!(md.contains("--system"));
}

/// `rate-batch completions SHELL` prints a script naming the subcommands and their options.
#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef rate-batch"),
        ("fish", "complete -c rate-batch"),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(o.status.success(), "{shell}");
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.contains(marker), "{shell}: {}", &text[..200]);
        assert!(
            text.contains("replay") && text.contains("--system"),
            "{shell}"
        );
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
