//! `tribunal init DIR [--name NAME]`: a new arena that lints clean and
//! passes 2/2 in mock mode — `arena.toml` with every key explained, a
//! two-item dataset with checks and mock turns, a schema, a corpus, and a
//! README on the item and mock-turn formats. It writes only into a folder
//! that does not exist or is empty: nothing of the user's is overwritten.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::internal::arena::plain_name;

#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The new arena's folder (created; must be empty if it exists).
    dir: PathBuf,
    /// The arena's name. Default: the folder's name.
    #[arg(long)]
    name: Option<String>,
}

/// The files of a new arena, `{{name}}` and `{{dir}}` to be filled in.
const FILES: [(&str, &str); 5] = [
    ("arena.toml", include_str!("init/arena.toml")),
    ("dataset.jsonl", include_str!("init/dataset.jsonl")),
    ("schema.json", include_str!("init/schema.json")),
    ("corpus.json", include_str!("init/corpus.json")),
    ("README.md", include_str!("init/README.md")),
];

/// Why `dir` cannot take a new arena, if it cannot.
fn not_empty(dir: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().map(|e| {
            let name = e.map(|e| e.file_name().to_string_lossy().into_owned());
            format!(
                "{} is not empty (it holds {}): init writes a new arena into an empty or new folder; nothing was written",
                dir.display(),
                name.unwrap_or_else(|_| "entries".to_string())
            )
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(Some(format!(
            "{} is a file: init writes a new arena into an empty or new folder",
            dir.display()
        ))),
        Err(e) => Err(anyhow::anyhow!("cannot read {}: {e}", dir.display())),
    }
}

pub(crate) fn run(args: InitArgs) -> anyhow::Result<ExitCode> {
    let name = match &args.name {
        Some(n) => n.clone(),
        None => args
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    if !plain_name(&name) {
        anyhow::bail!(
            "{name:?} cannot name an arena (letters, digits, '.', '_' and '-', not starting with '.'): pass --name NAME"
        );
    }
    if let Some(why) = not_empty(&args.dir)? {
        anyhow::bail!("{why}");
    }
    std::fs::create_dir_all(&args.dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", args.dir.display()))?;
    let dir = args.dir.display().to_string();
    for (file, template) in FILES {
        let text = template.replace("{{name}}", &name).replace("{{dir}}", &dir);
        let path = args.dir.join(file);
        std::fs::write(&path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    println!(
        "created arena {name:?} in {dir}: arena.toml, dataset.jsonl (2 items), schema.json, corpus.json, README.md"
    );
    println!("next:");
    println!("  tribunal lint {dir}");
    println!(
        "  tribunal run {dir}                  # mock mode: 2/2 PASS, no key; runs/{name}.mock.jsonl"
    );
    println!(
        "  tribunal run {dir} --backend openai-chat --model gpt-4.1-mini   # runs/{name}.openai-chat-gpt-4.1-mini.jsonl"
    );
    println!("  tribunal compare {dir}              # the newest two results files of the arena");
    Ok(ExitCode::SUCCESS)
}
