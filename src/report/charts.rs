//! The report's charts: inline SVG drawn by `plotters` (its SVG backend, no fonts: text stays `<text>` the
//! browser lays out), then given what plotters does not write: `role="img"`, a `<title>` and a `<desc>` (the
//! chart's text alternative, with its range and extremes) and the ids that tie them to `aria-labelledby`.
//!
//! Colours: series use a palette readable on light and dark backgrounds; axes and grid are a mid grey, and the
//! page's CSS gives text the page's own colour, so one SVG serves both colour schemes. Legends are HTML beside
//! the chart, not drawn into it.

use plotters::prelude::*;

/// Text made safe for HTML and SVG text and attribute values (the page and its charts).
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Width and height of a chart, in SVG user units (it scales to its container).
pub const SIZE: (u32, u32) = (600, 300);

/// Series colours (Okabe-Ito, readable for colour-blind readers and on both backgrounds).
pub const PALETTE: [(u8, u8, u8); 6] = [
    (0, 114, 178),
    (230, 159, 0),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
    (213, 94, 0),
];

/// A colour, (red, green, blue).
pub type Rgb = (u8, u8, u8);

/// Runs of eras of one colour: (first era, last era, colour).
pub type EraRuns = Vec<(u64, u64, Rgb)>;

/// Colour of present, missing and failed archives in a coverage strip.
pub const PRESENT: (u8, u8, u8) = (0, 158, 115);
/// A gap: an era between the first and last present one that the output does not hold.
pub const GAP: (u8, u8, u8) = (160, 160, 160);
/// A file whose last run failed.
pub const FAILED: (u8, u8, u8) = (213, 94, 0);

const GREY: RGBColor = RGBColor(128, 128, 128);

/// `#rrggbb` of a colour.
pub fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// What a chart says about itself, for people who cannot see it.
pub struct Label<'a> {
    /// A unique id on the page (letters, digits, dashes).
    pub id: &'a str,
    /// The title (also the SVG `<title>`).
    pub title: &'a str,
    /// The text alternative (the SVG `<desc>`).
    pub desc: &'a str,
}

/// One line or layer of a chart.
pub struct Series<'a> {
    /// Its name (the legend's).
    pub name: &'a str,
    /// Its colour.
    pub color: (u8, u8, u8),
    /// (x, y) in x order.
    pub points: Vec<(f64, f64)>,
}

/// A number in few characters: `950`, `1.2k`, `3.4M`, `5.6G`, `7.8T`.
pub fn si(v: f64) -> String {
    let a = v.abs();
    let (d, s) = match a {
        a if a >= 1e15 => (1e15, "P"),
        a if a >= 1e12 => (1e12, "T"),
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e3 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / d;
    if s.is_empty() {
        if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    } else if x.abs() >= 100.0 {
        format!("{x:.0}{s}")
    } else {
        format!("{x:.1}{s}")
    }
}

/// Gives a plotters SVG its role, title, description and ids.
fn accessible(svg: String, l: &Label<'_>) -> String {
    let Some(end) = svg.find('>') else {
        return svg;
    };
    let (open, rest) = svg.split_at(end);
    let open = open.replacen(
        "<svg",
        &format!(
            "<svg role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" class=\"chart\"",
            id = l.id
        ),
        1,
    );
    format!(
        "{open}><title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>{}",
        esc(l.title),
        esc(l.desc),
        &rest[1..],
        id = l.id
    )
}

/// The x range of some series, widened to at least `min_width`.
fn x_range(series: &[Series<'_>], min_width: f64) -> (f64, f64) {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < min_width {
        let mid = (lo + hi) / 2.0;
        return (mid - min_width / 2.0, mid + min_width / 2.0);
    }
    (lo, hi)
}

/// How the x axis reads.
#[derive(Debug, Clone, Copy)]
pub enum XAxis {
    /// Day numbers, labelled as UTC dates.
    Days,
    /// Era numbers.
    Eras,
}

/// A line chart (or, `stacked`, areas stacked in series order) of `series` over days or eras, `y_desc` naming
/// the unit. Returns the SVG, or why plotters could not draw it.
pub fn lines(
    l: &Label<'_>,
    x: XAxis,
    y_desc: &str,
    series: &[Series<'_>],
    stacked: bool,
) -> Result<String, String> {
    // Stacked: each layer's top is the sum of the layers below it and itself.
    let tops: Vec<Vec<(f64, f64)>> = if stacked {
        let mut acc: Vec<(f64, f64)> = Vec::new();
        series
            .iter()
            .map(|s| {
                if acc.is_empty() {
                    acc = s.points.clone();
                } else {
                    for (a, p) in acc.iter_mut().zip(&s.points) {
                        a.1 += p.1;
                    }
                }
                acc.clone()
            })
            .collect()
    } else {
        series.iter().map(|s| s.points.clone()).collect()
    };
    let (x0, x1) = x_range(series, 2.0);
    let y_max = tops
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.05;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .margin_right(48)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(x0..x1, 0.0..y_max)
            .map_err(|e| e.to_string())?;
        // Days are whole: no label between two.
        let date = |v: &f64| match (v - v.round()).abs() < 1e-9 {
            true => crate::util::time::utc_date(v.round() as i64),
            false => String::new(),
        };
        let era = |v: &f64| match (v - v.round()).abs() < 1e-9 {
            true => format!("{:.0}", v),
            false => String::new(),
        };
        let y_label = |v: &f64| si(*v);
        let mut mesh = chart.configure_mesh();
        mesh.x_labels(5)
            .y_labels(5)
            .y_label_formatter(&y_label)
            .y_desc(y_desc)
            .axis_style(GREY)
            .bold_line_style(GREY.mix(0.3))
            .light_line_style(GREY.mix(0.12))
            .label_style(("sans-serif", 18).into_font().color(&GREY))
            .axis_desc_style(("sans-serif", 18).into_font().color(&GREY));
        match x {
            XAxis::Days => mesh.x_label_formatter(&date).x_desc("UTC day"),
            XAxis::Eras => mesh.x_label_formatter(&era).x_desc("era"),
        };
        mesh.draw().map_err(|e| e.to_string())?;
        for (s, top) in series.iter().zip(&tops).rev() {
            let c = RGBColor(s.color.0, s.color.1, s.color.2);
            if stacked {
                chart
                    .draw_series(AreaSeries::new(top.iter().copied(), 0.0, c.mix(0.85)))
                    .map_err(|e| e.to_string())?;
            } else {
                chart
                    .draw_series(LineSeries::new(top.iter().copied(), c.stroke_width(2)))
                    .map_err(|e| e.to_string())?;
            }
            if top.len() == 1 {
                // One point draws no line: a dot.
                chart
                    .draw_series(top.iter().map(|&p| Circle::new(p, 4, c.filled())))
                    .map_err(|e| e.to_string())?;
            }
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(accessible(svg, l))
}

/// A coverage strip: one row per archive kind (`rows`: label and runs of (first era, last era, colour)), over
/// eras `lo..=hi`.
pub fn strip(
    l: &Label<'_>,
    lo: u64,
    hi: u64,
    rows: &[(String, EraRuns)],
) -> Result<String, String> {
    let n = rows.len().max(1);
    let height = 80 + 34 * n as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (SIZE.0, height)).into_drawing_area();
        let (x0, x1) = (lo as f64, hi as f64 + 1.0);
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(x0..x1, 0.0..n as f64)
            .map_err(|e| e.to_string())?;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let y_label = |v: &f64| {
            let i = (n as f64 - v - 0.5).round();
            if (v.fract() - 0.5).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        };
        // Eras are whole: no label between two.
        let x_label = |v: &f64| match (v - v.round()).abs() < 1e-9 {
            true => format!("{:.0}", v),
            false => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_labels(8)
            .y_labels(2 * n + 1)
            .y_label_formatter(&y_label)
            .x_label_formatter(&x_label)
            .x_desc("era")
            .axis_style(GREY)
            .bold_line_style(GREY.mix(0.3))
            .light_line_style(GREY.mix(0.12))
            .label_style(("sans-serif", 15).into_font().color(&GREY))
            .axis_desc_style(("sans-serif", 15).into_font().color(&GREY))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (_, runs)) in rows.iter().enumerate() {
            let y1 = n as f64 - i as f64 - 0.15;
            let y0 = n as f64 - i as f64 - 0.85;
            chart
                .draw_series(runs.iter().map(|&(a, b, c)| {
                    Rectangle::new(
                        [(a as f64, y0), (b as f64 + 1.0, y1)],
                        RGBColor(c.0, c.1, c.2).filled(),
                    )
                }))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(accessible(svg, l))
}
