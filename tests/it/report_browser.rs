//! The report page in a real browser: the sample output's page (the README's main job, `pipelines/sample.toml`)
//! rendered by headless Chromium loads without console messages, shows every chart's SVG with drawn shapes,
//! its screenshot is not blank, and it follows a dark colour scheme.
//!
//! Needs `chromium` (Debian's package; `.ci/run` installs it and sets ERAFLOW_REQUIRE_BROWSER=1, which turns its
//! absence from a loud skip into a failure).

use crate::util::eraflow;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The browser's command, or `None` after a loud skip.
fn chromium() -> Option<String> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let ok = Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(name.into());
        }
    }
    if std::env::var_os("ERAFLOW_REQUIRE_BROWSER").is_some() {
        panic!("chromium is required (ERAFLOW_REQUIRE_BROWSER is set): apt-get install chromium");
    }
    crate::skip::skip(
        "the report in a headless browser",
        "chromium not found (apt-get install chromium)",
    );
    None
}

/// Runs headless Chromium on `page` with `args`; (stdout, stderr). A fresh profile each time, no sandbox (CI
/// runs as root), console messages logged to stderr, at most two minutes.
fn headless(browser: &str, profile: &Path, page: &Path, args: &[&str]) -> (String, String) {
    let o = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{browser}: {o:?}");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The lines of the browser's log that carry a page's console messages.
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains("CONSOLE")).collect()
}

/// The sample output: `pipelines/sample.toml` with its paths moved into `dir`; its page.
fn sample_report(dir: &Path) -> PathBuf {
    let pipeline = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/sample.toml");
    let archives = dir.join("archives");
    let datasets = dir.join("datasets");
    let (code, _, err) = crate::util::run(
        eraflow()
            .args(["-q", "run"])
            .arg(&pipeline)
            .arg("--set")
            .arg(format!("synth.out={}", archives.display()))
            .arg("--set")
            .arg(format!("inputs={}", archives.display()))
            .arg("--set")
            .arg(format!("out={}", datasets.display())),
    );
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = crate::util::run(eraflow().arg("report").arg(&datasets));
    assert_eq!(code, Some(0), "{err}");
    PathBuf::from(out.trim())
}

#[test]
fn the_sample_report_renders_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = sample_report(dir.path());
    let html = std::fs::read_to_string(&page).unwrap();
    crate::report::assert_sensible(&html);
    let charts = html.matches("<svg").count();
    assert!(
        charts >= 4,
        "the sample has a coverage strip and three charts: {charts}"
    );

    // The DOM the browser built: every chart's SVG, each with drawn shapes that have coordinates.
    let (dom, log) = headless(&browser, &dir.path().join("p1"), &page, &["--dump-dom"]);
    assert!(
        console_lines(&log).is_empty(),
        "console: {:?}",
        console_lines(&log)
    );
    let svgs: Vec<&str> = dom
        .split("<svg")
        .skip(1)
        .map(|s| s.split("</svg>").next().unwrap())
        .collect();
    assert_eq!(svgs.len(), charts, "every chart's SVG is in the DOM");
    for s in &svgs {
        assert!(
            s.contains("role=\"img\"") && s.contains("<title") && s.contains("<desc"),
            "{s}"
        );
        let drawn = s.split('<').filter(|e| {
            let coords = |attr: &str| {
                e.split(attr)
                    .nth(1)
                    .and_then(|v| v.split('"').next())
                    .is_some_and(|v| v.chars().any(|c| c.is_ascii_digit()))
            };
            (e.starts_with("polyline") || e.starts_with("polygon")) && coords(" points=\"")
                || e.starts_with("rect") && coords(" width=\"") && !e.contains(" width=\"0\"")
        });
        assert!(drawn.count() > 0, "an SVG with nothing drawn: {s}");
    }

    // A screenshot of the page as a laptop shows it: not blank.
    let png = dir.path().join("report.png");
    let (_, log) = headless(
        &browser,
        &dir.path().join("p2"),
        &page,
        &[
            "--window-size=1280,1600",
            &format!("--screenshot={}", png.display()),
        ],
    );
    assert!(
        console_lines(&log).is_empty(),
        "console: {:?}",
        console_lines(&log)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1280, 1600));
    let px = info.color_type.samples() * usize::from(info.bit_depth as u8 / 8).max(1);
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    let colours: std::collections::BTreeSet<&[u8]> = pixels.iter().copied().collect();
    let background = pixels[0];
    let other = pixels.iter().filter(|p| **p != background).count();
    assert!(colours.len() > 50, "{} colours", colours.len());
    assert!(
        other * 20 > pixels.len(),
        "{other} of {} pixels differ from the background",
        pixels.len()
    );

    // Dark mode: the same page under `prefers-color-scheme: dark` has a dark background (the light one, light).
    let dark = dir.path().join("dark.png");
    headless(
        &browser,
        &dir.path().join("p4"),
        &page,
        &[
            "--window-size=1280,1600",
            "--force-dark-mode",
            &format!("--screenshot={}", dark.display()),
        ],
    );
    let corner = |p: &Path| {
        let mut r = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        u32::from(buf[0]) + u32::from(buf[1]) + u32::from(buf[2])
    };
    assert!(corner(&png) > 600, "light background");
    assert!(corner(&dark) < 150, "dark background");

    // The console check itself: a page that logs is caught.
    let noisy = dir.path().join("noisy.html");
    std::fs::write(
        &noisy,
        "<!DOCTYPE html><title>x</title><script>console.error('boom')</script>",
    )
    .unwrap();
    let (_, log) = headless(&browser, &dir.path().join("p3"), &noisy, &["--dump-dom"]);
    assert!(
        console_lines(&log).iter().any(|l| l.contains("boom")),
        "a console error goes unseen: {log}"
    );
}
