//! The chapter's chart: for each strategy, its throughput as a share of pgbench's on each
//! stream, at the workers the chapter shows; one bar per stream, grouped by strategy.

use std::path::Path;

use plotters::prelude::*;

use crate::Cell;
use crate::strategy::Strategy;
use crate::stream::Stream;

const COLOURS: [RGBColor; 3] = [
    RGBColor(66, 114, 166),
    RGBColor(224, 145, 58),
    RGBColor(120, 120, 120),
];

pub fn draw(file: &Path, cells: &[Cell]) -> Result<(), String> {
    draw_into(file, cells).map_err(|e| e.to_string())
}

fn draw_into(file: &Path, cells: &[Cell]) -> Result<(), Box<dyn std::error::Error>> {
    let workers = crate::report::shown_workers(cells);
    let ratio = |strategy: Strategy, stream: Stream| {
        (cells.iter())
            .find(|c| (c.strategy, c.stream, c.workers) == (strategy, stream, workers))
            .map_or(0.0, |c| c.measured.per_second() / c.ceiling)
    };
    let most = (cells.iter())
        .filter(|c| c.workers == workers)
        .map(|c| c.measured.per_second() / c.ceiling)
        .fold(1.0f64, f64::max);
    let names = Strategy::ALL.map(Strategy::name);
    // plotters counts segments from the bottom: the first strategy goes in the top one.
    let row = |i: usize| names.len() - 1 - i;

    let root = SVGBackend::new(file, (860, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("Throughput as a share of pgbench's, {workers} workers"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(180)
        .build_cartesian_2d(0.0..most * 1.1, (0..names.len() - 1).into_segmented())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(names.len())
        .y_label_formatter(&|at| match at {
            SegmentValue::CenterOf(i) if *i < names.len() => names[row(*i)].to_string(),
            _ => String::new(),
        })
        .x_desc("events per second ÷ pgbench's transactions per second")
        .label_style(("sans-serif", 13))
        .draw()?;

    // Each strategy's segment holds one bar per stream, stacked top to bottom.
    let segment = chart.plotting_area().dim_in_pixel().1 as i32 / names.len() as i32;
    let bar = (segment - 8) / 3;
    for (k, stream) in Stream::ALL.into_iter().enumerate() {
        let colour = COLOURS[k];
        let (above, below) = (4 + k as i32 * bar, segment - 4 - (k as i32 + 1) * bar);
        chart
            .draw_series(Strategy::ALL.into_iter().enumerate().map(|(i, strategy)| {
                let mut rectangle = Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(row(i))),
                        (ratio(strategy, stream), SegmentValue::Exact(row(i) + 1)),
                    ],
                    colour.filled(),
                );
                rectangle.set_margin(above as u32, below as u32, 0, 0);
                rectangle
            }))?
            .label(stream.name())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    root.present()?;
    Ok(())
}
