//! The HTML report in a real browser: headless Chromium loads the generated
//! file from `file://` and the test reads the rendered DOM (`--dump-dom`).
//! The page's state comes from the URL fragment (`#filter=FAIL`,
//! `#open=3`), so no DevTools protocol is needed. A screenshot is saved
//! under `target/tmp/browser/` as a test artifact.
//!
//! Chromium is found as `$TRIBUNAL_CHROMIUM`, else `chromium`,
//! `chromium-browser` or `google-chrome` on `PATH`. Without it the tests
//! fail with the install hint (a skip that passes would hide them from a
//! `cargo test --workspace` that claims to run every test), unless
//! `TRIBUNAL_SKIP_BROWSER=1` asks to skip them knowingly — never in CI.

use crate::html_fixtures::{EVIL_TEXT, many_rows, small_rows, write_fail_transcripts};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tribunal_judge::internal::report::format::html::{ReportPage, render_page};

const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TRIBUNAL_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| {
            ["chromium", "chromium-browser", "google-chrome"]
                .into_iter()
                .map(move |name| dir.join(name))
        })
        .find(|p| p.is_file())
}

/// Whether the user asked to skip the browser tests (ignored in CI).
fn skip_asked() -> bool {
    !in_ci() && std::env::var("TRIBUNAL_SKIP_BROWSER").is_ok_and(|v| v == "1")
}

/// The browser, or `None` when it is missing and the user asked to skip.
/// Otherwise a missing browser fails the test.
fn chromium() -> Option<PathBuf> {
    match find_chromium() {
        Some(p) => Some(p),
        None if skip_asked() => {
            println!("SKIPPED: no Chromium, and TRIBUNAL_SKIP_BROWSER=1 asks to skip");
            None
        }
        None => panic!(
            "the HTML report's browser tests need Chromium: install the `chromium` package \
             (`bash .ci/run` does) or set TRIBUNAL_CHROMIUM to a Chromium binary; outside CI, \
             TRIBUNAL_SKIP_BROWSER=1 skips them knowingly"
        ),
    }
}

/// Where artifacts go: `target/tmp/browser/`.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn file_url(path: &Path, fragment: &str) -> String {
    let abs = std::fs::canonicalize(path).unwrap();
    let mut url = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(b as char)
            }
            _ => url.push_str(&format!("%{b:02X}")),
        }
    }
    url + fragment
}

/// Runs Chromium on `url` with `extra` flags; returns stdout and the wall
/// time. Kills the browser after 90 s.
fn run_chromium(bin: &Path, url: &str, extra: &[String]) -> (String, Duration) {
    let profile = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium exited with {status}");
            break;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let elapsed = started.elapsed();
    (reader.join().unwrap(), elapsed)
}

fn dump_dom(bin: &Path, report: &Path, fragment: &str) -> String {
    let (dom, _) = run_chromium(bin, &file_url(report, fragment), &["--dump-dom".into()]);
    assert!(
        dom.contains(r#"data-ready="1""#),
        "the page script did not finish:\n{dom:.2000}"
    );
    assert!(!dom.contains("data-pwned"), "hostile text ran as script");
    dom
}

/// The `data-outcome` of every item row in the dumped DOM.
fn row_outcomes(dom: &str) -> Vec<String> {
    dom.split(r#"<tr class="item "#)
        .skip(1)
        .map(|rest| {
            let start = rest.find(r#"data-outcome=""#).unwrap() + 14;
            rest[start..start + rest[start..].find('"').unwrap()].to_string()
        })
        .collect()
}

/// The data index (`data-i`: the item's place in the report's rows, which
/// is dataset order) of every item row in the dumped DOM, in display order.
fn row_indices(dom: &str) -> Vec<usize> {
    dom.split(r#"<tr class="item "#)
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let start = tag.find(r#"data-i=""#).unwrap() + 8;
            tag[start..start + tag[start..].find('"').unwrap()]
                .parse()
                .unwrap()
        })
        .collect()
}

fn small_report() -> PathBuf {
    let rows = small_rows();
    let dir = artifacts();
    let transcripts = dir.join("transcripts");
    write_fail_transcripts(&rows, &transcripts);
    let path = dir.join("report.html");
    std::fs::write(
        &path,
        render_page(&ReportPage::with_transcripts(&rows, &transcripts)),
    )
    .unwrap();
    path
}

#[test]
fn html_browser_renders_rows_filters_and_escapes() {
    let Some(bin) = chromium() else { return };
    let report = small_report();

    // Rows 0..5 are eiffel-tower, golden-gate, statue-of-liberty, the
    // hostile id and cn-tower; wall time and tokens grow with the index.
    let all = dump_dom(&bin, &report, "");
    assert_eq!(
        row_outcomes(&all),
        ["PASS", "FAIL", "ERROR", "FAIL", "PASS"]
    );
    assert_eq!(row_indices(&all), [0, 1, 2, 3, 4]);
    assert!(all.contains("5 of 5 item runs"));
    assert!(all.contains(r#"id="mock-banner""#));

    let fail = dump_dom(&bin, &report, "#filter=FAIL");
    assert_eq!(row_outcomes(&fail), ["FAIL", "FAIL"]);
    assert_eq!(row_indices(&fail), [1, 3]);
    assert!(fail.contains("2 of 5 item runs"));

    let sorted = dump_dom(&bin, &report, "#sort=wall-desc");
    assert_eq!(row_indices(&sorted), [4, 3, 2, 1, 0], "slowest first");
    let sorted = dump_dom(&bin, &report, "#sort=tokens-desc&filter=PASS");
    assert_eq!(row_indices(&sorted), [4, 0], "most tokens first");
    let searched = dump_dom(&bin, &report, "#sort=tokens-asc&q=TOWER");
    assert_eq!(row_indices(&searched), [0, 4], "fewest tokens first");

    // The hostile item's detail: its transcript's <script> is text.
    let open = dump_dom(&bin, &report, "#filter=FAIL&open=3");
    let escaped = EVIL_TEXT.replace('<', "&lt;").replace('>', "&gt;");
    assert!(open.contains(&escaped), "escaped transcript text missing");
    assert!(open.contains("&lt;/script&gt;&lt;script&gt;document.body.dataset.pwned='id'"));
    assert!(open.contains("&lt;/pre&gt;&lt;b&gt;bold?&lt;/b&gt;"));
    assert!(open.contains(r#"<tr class="detail" id="detail">"#));
    assert_eq!(
        open.matches("<script").count(),
        2,
        "only the page's own scripts"
    );

    let detail = dump_dom(&bin, &report, "#open=4");
    assert!(detail.contains("&lt;img src=x onerror="));
    assert!(!detail.contains("<img"));
    // Its usage line with the run's cost (a mock run costs nothing).
    assert!(
        detail.contains("Usage: 440 input + 44 output tokens · $0.000000 · "),
        "usage line with the cost missing"
    );

    let shot = artifacts().join("report.png");
    let _ = std::fs::remove_file(&shot);
    run_chromium(
        &bin,
        &file_url(&report, "#filter=FAIL&open=3"),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,1800".into(),
            "--hide-scrollbars".into(),
        ],
    );
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "screenshot {} is {size} bytes",
        shot.display()
    );
    println!("screenshot: {}", shot.display());
}

/// The value of `attr="…"` on the dumped `<body>`.
fn body_attr(dom: &str, attr: &str) -> String {
    dom.split(&format!(r#"{attr}=""#))
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("?")
        .to_string()
}

/// 10,000 item runs: the file stays under 5 MB, the first page of rows
/// renders, and filters reach every item. The load time is printed (and
/// recorded in BENCHMARKS.md), not asserted.
#[test]
fn html_browser_ten_thousand_items() {
    let Some(bin) = chromium() else { return };
    let path = artifacts().join("report-10k.html");
    let html = render_page(&ReportPage::from_rows(&many_rows(10_000)));
    assert!(html.len() < 5 * 1024 * 1024);
    std::fs::write(&path, &html).unwrap();
    let (dom, elapsed) = run_chromium(&bin, &file_url(&path, ""), &["--dump-dom".into()]);
    assert!(dom.contains(r#"data-ready="1""#));
    assert_eq!(row_outcomes(&dom).len(), 1000, "the first page of rows");
    assert!(dom.contains("showing 1000 of 10000 matching"));
    assert!(dom.contains("show 1000 more of 9000"));
    let errors = dump_dom(&bin, &path, "#filter=ERROR");
    let outcomes = row_outcomes(&errors);
    assert_eq!(outcomes.len(), 500);
    assert!(outcomes.iter().all(|o| o == "ERROR"));
    let found = dump_dom(&bin, &path, "#q=landmark-09999");
    assert_eq!(row_outcomes(&found).len(), 1);
    let blank = artifacts().join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><title>blank</title>").unwrap();
    let (_, baseline) = run_chromium(&bin, &file_url(&blank, ""), &["--dump-dom".into()]);
    println!(
        "10,000-item report: {} bytes; chromium --dump-dom {:.0} ms (blank page {:.0} ms); \
         page ready (parsed, scripted, table laid out) {} ms after navigation; script {} ms",
        html.len(),
        elapsed.as_secs_f64() * 1000.0,
        baseline.as_secs_f64() * 1000.0,
        body_attr(&dom, "data-ready-ms"),
        body_attr(&dom, "data-render-ms"),
    );
}
