//! Where web pages and objects go once finished. In memory (the default of
//! `sim::run`, turned into `RunResult.objects` and `.pages`), or streamed to
//! two CSV files as each page finishes, so that a browsing run's memory
//! follows the pages under way and not the run's length (a 60-user sector
//! browses about 5,000 pages an hour). Either way each flow's totals (pages
//! and objects done, their mean delays) are kept for its row of `flows`.

use crate::app::http::{FinishedPage, ObjectRecord, PageRecord};
use crate::engine::time::secs;
use crate::result::{FlowResult, ObjectResult, PageResult};
use crate::sim::drop_log::csv_field;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The CSV headers: one row per object / page, as the `objects` and
/// `pages` tables.
pub const OBJECTS_HEADER: &str = "flow,page,index,request_bytes,size_bytes,start_s,finish_s,delay_s,normalized_s_per_kb";
pub const PAGES_HEADER: &str = "flow,page,objects,size_bytes,start_s,finish_s,delay_s,normalized_s_per_kb";

/// A flow's web totals: what its row of the flows table says of its pages.
#[derive(Clone, Debug, Default)]
pub struct WebTotals {
    pub pages: u64,
    pub pages_done: u64,
    pub objects: u64,
    pub objects_done: u64,
    pub page_delay_s: f64,
    pub object_delay_s: f64,
    pub object_s_per_kb: f64,
}

impl WebTotals {
    /// Its columns of the flows table (means over the finished).
    pub fn fill(&self, r: &mut FlowResult) {
        let mean = |sum: f64, n: u64| (n > 0).then(|| sum / n as f64);
        r.pages = Some(self.pages);
        r.pages_done = Some(self.pages_done);
        r.objects = Some(self.objects);
        r.objects_done = Some(self.objects_done);
        r.page_delay_mean_s = mean(self.page_delay_s, self.pages_done);
        r.object_delay_mean_s = mean(self.object_delay_s, self.objects_done);
        r.object_s_per_kb_mean = mean(self.object_s_per_kb, self.objects_done);
    }
}

/// Delay over size in seconds per KB (1000 bytes): Dziong et al. §5.1.1's
/// normalized delay.
fn per_kb(delay: f64, bytes: u64) -> f64 {
    delay / (bytes as f64 / 1000.0)
}

fn object_row(flow: &str, o: &ObjectRecord) -> ObjectResult {
    let delay = o.finish.zip(o.start).map(|(f, s)| secs(f - s));
    ObjectResult {
        flow: flow.to_string(),
        page: o.page,
        index: o.index,
        request_bytes: o.request,
        size_bytes: o.size,
        start_s: o.start.map(secs),
        finish_s: o.finish.map(secs),
        delay_s: delay,
        normalized_s_per_kb: delay.map(|d| per_kb(d, o.size)),
    }
}

fn page_row(flow: &str, number: u32, p: &PageRecord) -> PageResult {
    let delay = p.finish.map(|t| secs(t - p.start));
    PageResult {
        flow: flow.to_string(),
        page: number,
        objects: p.objects,
        size_bytes: p.size,
        start_s: secs(p.start),
        finish_s: p.finish.map(secs),
        delay_s: delay,
        normalized_s_per_kb: delay.map(|d| per_kb(d, p.size)),
    }
}

enum Sink {
    /// Rows with their flow's index, put in flow order when collected.
    Memory { objects: Vec<(u32, ObjectResult)>, pages: Vec<(u32, PageResult)> },
    File { objects: BufWriter<File>, pages: BufWriter<File>, dir: PathBuf, error: Option<std::io::Error> },
}

pub struct WebLog {
    sink: Sink,
    /// Per flow index (only web flows' are used).
    totals: Vec<WebTotals>,
}

impl Default for WebLog {
    fn default() -> Self {
        WebLog { sink: Sink::Memory { objects: Vec::new(), pages: Vec::new() }, totals: Vec::new() }
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(String::new, |v| v.to_string())
}

impl WebLog {
    /// Stream to `DIR/objects.csv` and `DIR/pages.csv`.
    pub fn to_dir(dir: &Path) -> std::io::Result<Self> {
        let open = |name: &str, header: &str| -> std::io::Result<BufWriter<File>> {
            let mut w = BufWriter::new(File::create(dir.join(name))?);
            writeln!(w, "{header}")?;
            Ok(w)
        };
        Ok(WebLog {
            sink: Sink::File {
                objects: open("objects.csv", OBJECTS_HEADER)?,
                pages: open("pages.csv", PAGES_HEADER)?,
                dir: dir.to_path_buf(),
                error: None,
            },
            totals: Vec::new(),
        })
    }

    /// A page of flow `flow` (named `name`) with its objects: finished, or
    /// (`open`) still under way when the run ended.
    pub fn push(&mut self, flow: u32, name: &str, p: &FinishedPage) {
        let f = flow as usize;
        if self.totals.len() <= f {
            self.totals.resize(f + 1, WebTotals::default());
        }
        let t = &mut self.totals[f];
        let page = page_row(name, p.number, &p.page);
        t.pages += 1;
        if let Some(d) = page.delay_s {
            t.pages_done += 1;
            t.page_delay_s += d;
        }
        let objects: Vec<ObjectResult> = p.objects.iter().map(|o| object_row(name, o)).collect();
        for o in &objects {
            t.objects += 1;
            if let (Some(d), Some(n)) = (o.delay_s, o.normalized_s_per_kb) {
                t.objects_done += 1;
                t.object_delay_s += d;
                t.object_s_per_kb += n;
            }
        }
        match &mut self.sink {
            Sink::Memory { objects: all, pages } => {
                all.extend(objects.into_iter().map(|o| (flow, o)));
                pages.push((flow, page));
            }
            Sink::File { objects: ow, pages: pw, error, .. } => {
                if error.is_some() {
                    return;
                }
                // Full precision (Rust's shortest round-trip float formatting).
                let mut write = || -> std::io::Result<()> {
                    for o in &objects {
                        writeln!(
                            ow,
                            "{},{},{},{},{},{},{},{},{}",
                            csv_field(&o.flow),
                            o.page,
                            o.index,
                            o.request_bytes,
                            o.size_bytes,
                            opt(o.start_s),
                            opt(o.finish_s),
                            opt(o.delay_s),
                            opt(o.normalized_s_per_kb)
                        )?;
                    }
                    writeln!(
                        pw,
                        "{},{},{},{},{},{},{},{}",
                        csv_field(&page.flow),
                        page.page,
                        page.objects,
                        page.size_bytes,
                        page.start_s,
                        opt(page.finish_s),
                        opt(page.delay_s),
                        opt(page.normalized_s_per_kb)
                    )
                };
                if let Err(e) = write() {
                    *error = Some(e);
                }
            }
        }
    }

    pub fn totals(&self, flow: u32) -> WebTotals {
        self.totals.get(flow as usize).cloned().unwrap_or_default()
    }

    /// The rows kept in memory, in flow order and within a flow in page
    /// and object order (empty when streamed).
    pub fn rows(&mut self) -> (Vec<ObjectResult>, Vec<PageResult>) {
        match &mut self.sink {
            Sink::Memory { objects, pages } => {
                let mut objects = std::mem::take(objects);
                let mut pages = std::mem::take(pages);
                objects.sort_by_key(|(f, o)| (*f, o.page, o.index));
                pages.sort_by_key(|(f, p)| (*f, p.page));
                (objects.into_iter().map(|x| x.1).collect(), pages.into_iter().map(|x| x.1).collect())
            }
            Sink::File { .. } => (Vec::new(), Vec::new()),
        }
    }

    /// Flush the files; the first write error, if any, with its path.
    pub fn finish(&mut self) -> Result<(), (PathBuf, std::io::Error)> {
        if let Sink::File { objects, pages, dir, error } = &mut self.sink {
            if let Some(e) = error.take() {
                return Err((dir.clone(), e));
            }
            objects.flush().map_err(|e| (dir.join("objects.csv"), e))?;
            pages.flush().map_err(|e| (dir.join("pages.csv"), e))?;
        }
        Ok(())
    }
}
