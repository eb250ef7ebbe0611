//! Prints the public API of a crate from its rustdoc JSON, one item per line,
//! sorted, as `cargo public-api -s` prints it: through cargo-public-api's own
//! library, blanket impls (`impl<T> From<T> for T` and the like on every
//! type) left out, auto-trait impls (`Send`, `Sync`, …) and derived impls in.

use std::io::Write;
use std::process::ExitCode;

/// The one field read before the whole document: the format it is in.
#[derive(serde::Deserialize)]
struct Format {
    format_version: u32,
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: tribunal-public-api RUSTDOC_JSON");
        return ExitCode::FAILURE;
    };
    let shown = path.to_string_lossy().into_owned();
    let json = match std::fs::read_to_string(&path) {
        Ok(json) => json,
        Err(error) => {
            eprintln!("{shown}: {error}");
            return ExitCode::FAILURE;
        }
    };
    // public-api parses any format that happens to fit its types; a field
    // renamed between two formats would then drop items without an error.
    match serde_json::from_str::<Format>(&json) {
        Ok(Format { format_version }) if format_version == rustdoc_types::FORMAT_VERSION => {}
        Ok(Format { format_version }) => {
            eprintln!(
                "{shown}: rustdoc JSON format {format_version}, but this lister reads format {}: \
                 pin the public-api version (and its rustdoc-types) for format {format_version} \
                 in .ci/public-api/Cargo.toml",
                rustdoc_types::FORMAT_VERSION
            );
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("{shown}: no rustdoc JSON format_version: {error}");
            return ExitCode::FAILURE;
        }
    }
    drop(json);
    let api = match public_api::Builder::from_rustdoc_json(&path)
        .omit_blanket_impls(true)
        .build()
    {
        Ok(api) => api,
        Err(error) => {
            eprintln!("{shown}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    for item in api.items() {
        if writeln!(out, "{item}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
