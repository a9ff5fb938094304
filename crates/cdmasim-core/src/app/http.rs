//! An HTTP/1.0 web browser as Dziong et al. model it (§3.1 and
//! Fig. 2): a page is a main object (the response to the page request)
//! and then its embedded objects, fetched over at most C parallel
//! connections once the main object is in; then the user reads for a think
//! time and requests the next page.
//!
//! Sans I/O: this is the page and object bookkeeping only. The world opens
//! the TCP connections, asks which object to fetch next whenever a
//! connection is free, and reports each object's completion.

use super::workload::{bytes, count, WebWorkload};
use crate::engine::time::from_secs_f64;
use crate::engine::{Rng, Time};
use serde::{Deserialize, Serialize};

/// One `kind = "http"` flow: a browsing user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HttpSpec {
    pub workload: WebWorkload,
    /// C: most connections open at once (Table 1: 1; §5.1.1 also 4).
    pub parallel: u32,
    /// Keep a connection for the next object of the same page (HTTP/1.0
    /// keep-alive) instead of one connection per object.
    pub persistent: bool,
    /// Stop after this many pages (None: browse until the run ends).
    pub pages: Option<u64>,
}

impl Default for HttpSpec {
    fn default() -> Self {
        HttpSpec { workload: WebWorkload::default(), parallel: 1, persistent: false, pages: None }
    }
}

/// One object: the page's main object has index 0.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectRecord {
    pub page: u32,
    pub index: u32,
    pub request: u64,
    pub size: u64,
    /// When the browser issued the request (opened its connection, or
    /// wrote the request on a kept-alive one); None: not yet.
    pub start: Option<Time>,
    /// When its last byte reached the browser.
    pub finish: Option<Time>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PageRecord {
    pub start: Time,
    pub finish: Option<Time>,
    /// Objects including the main one.
    pub objects: u32,
    /// Bytes of all its objects (main response included, §5.1.2).
    pub size: u64,
}

/// A page that has finished, with its objects: handed out once, so that a
/// client holds only the page under way (memory follows what is open, not
/// the run's length).
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedPage {
    /// Its number in the flow, from 0.
    pub number: u32,
    pub page: PageRecord,
    pub objects: Vec<ObjectRecord>,
}

pub struct HttpClient {
    spec: HttpSpec,
    rng: Rng,
    /// Pages begun so far.
    pages_begun: u32,
    /// The page under way (or finished and not yet begun again), and its
    /// objects: object `o` is `objects[o - first]`.
    page: Option<PageRecord>,
    objects: Vec<ObjectRecord>,
    first: u32,
    /// Objects of the current page not yet requested (object numbers).
    next: std::collections::VecDeque<u32>,
    /// Its objects not yet finished.
    unfinished: u32,
    main_done: bool,
    think_until: Option<Time>,
    stopped: bool,
}

impl HttpClient {
    pub fn new(spec: HttpSpec, rng: Rng) -> Self {
        HttpClient {
            spec,
            rng,
            pages_begun: 0,
            page: None,
            objects: Vec::new(),
            first: 0,
            next: Default::default(),
            unfinished: 0,
            main_done: false,
            think_until: None,
            stopped: false,
        }
    }

    pub fn spec(&self) -> &HttpSpec {
        &self.spec
    }

    /// The user starts browsing: the first page request.
    pub fn start(&mut self, now: Time) {
        if self.pages_begun == 0 && !self.stopped {
            self.begin_page(now);
        }
    }

    /// No new page after this (the flow's stop time); objects under way finish.
    pub fn stop(&mut self) {
        self.stopped = true;
        self.think_until = None;
    }

    fn begin_page(&mut self, now: Time) {
        let w = &self.spec.workload;
        let page = self.pages_begun;
        self.pages_begun += 1;
        let embedded = count(&w.objects_per_page, &mut self.rng);
        self.first += self.objects.len() as u32;
        self.objects.clear();
        let mut size = 0;
        for index in 0..=embedded {
            let request = bytes(&w.request_size, &mut self.rng);
            let obj_size = bytes(&w.object_size, &mut self.rng);
            size += obj_size;
            self.objects.push(ObjectRecord { page, index, request, size: obj_size, start: None, finish: None });
        }
        self.page = Some(PageRecord { start: now, finish: None, objects: embedded + 1, size });
        self.next.clear();
        self.next.push_back(self.first);
        self.unfinished = embedded + 1;
        self.main_done = false;
    }

    /// The next object to request now, if the page allows one: the main
    /// object first, the embedded ones only once it is in (Fig. 2).
    pub fn next_object(&mut self, now: Time) -> Option<u32> {
        let o = self.next.pop_front()?;
        self.objects[(o - self.first) as usize].start = Some(now);
        Some(o)
    }

    /// Whether an object is waiting for a connection.
    pub fn has_next(&self) -> bool {
        !self.next.is_empty()
    }

    /// Object `o` is in; when it was the page's last, the finished page
    /// with its objects (the client keeps them no longer).
    pub fn on_object_done(&mut self, now: Time, o: u32) -> Option<FinishedPage> {
        self.objects[(o - self.first) as usize].finish = Some(now);
        self.unfinished -= 1;
        if !self.main_done {
            self.main_done = true;
            let end = self.first + self.objects.len() as u32;
            self.next.extend(self.first + 1..end);
        }
        if self.unfinished > 0 {
            return None;
        }
        let mut page = self.page.take().expect("a page is under way");
        page.finish = Some(now);
        let more = self.spec.pages.is_none_or(|n| (self.pages_begun as u64) < n);
        if more && !self.stopped {
            let think = self.spec.workload.think_time.sample(&mut self.rng);
            self.think_until = Some(now + from_secs_f64(think));
        }
        let objects = std::mem::take(&mut self.objects);
        self.first += objects.len() as u32;
        Some(FinishedPage { number: self.pages_begun - 1, page, objects })
    }

    /// The page still under way at the end of a run, with its objects
    /// (unfinished ones have no finish time).
    pub fn open_page(&self) -> Option<FinishedPage> {
        self.page.clone().map(|page| FinishedPage { number: self.pages_begun - 1, page, objects: self.objects.clone() })
    }

    /// The end of the current think time.
    pub fn deadline(&self) -> Option<Time> {
        self.think_until
    }

    pub fn on_timer(&mut self, now: Time) {
        if self.think_until.is_some_and(|t| t <= now) {
            self.think_until = None;
            self.begin_page(now);
        }
    }

    pub fn object(&self, o: u32) -> &ObjectRecord {
        &self.objects[(o - self.first) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::workload::Dist;
    use crate::engine::RngStreams;

    fn client(objects: f64) -> HttpClient {
        let mut spec = HttpSpec { pages: Some(2), ..Default::default() };
        spec.workload.objects_per_page = Dist::Fixed(objects);
        spec.workload.think_time = Dist::Fixed(30.0);
        HttpClient::new(spec, RngStreams::new(3).stream("web"))
    }

    #[test]
    fn main_object_first_then_embedded_then_think() {
        let mut c = client(3.0);
        c.start(Time::ZERO);
        let main = c.next_object(Time::ZERO).unwrap();
        assert_eq!(c.object(main).index, 0);
        assert!(c.next_object(Time::ZERO).is_none(), "embedded objects wait for the main one");
        assert_eq!(c.on_object_done(Time(5), main), None);
        let got: Vec<u32> = std::iter::from_fn(|| c.next_object(Time(6))).collect();
        assert_eq!(got.len(), 3);
        let mut finished = None;
        for o in &got {
            assert_eq!(c.object(*o).start, Some(Time(6)));
            finished = c.on_object_done(Time(9), *o);
        }
        // The page is handed out whole once its last object is in, and the
        // client keeps nothing of it.
        let p = finished.expect("the page finished");
        assert_eq!((p.number, p.page.finish, p.objects.len()), (0, Some(Time(9)), 4));
        assert_eq!(p.page.size, p.objects.iter().map(|o| o.size).sum::<u64>());
        assert!(p.objects.iter().all(|o| o.finish.is_some()));
        assert!(c.open_page().is_none());
        assert_eq!(c.deadline(), Some(Time(9 + 30_000_000_000)));
        c.on_timer(Time(9 + 30_000_000_000));
        let m2 = c.next_object(Time(40)).unwrap();
        assert_eq!((c.object(m2).page, c.object(m2).index), (1, 0));
        let open = c.open_page().expect("page 1 is under way");
        assert_eq!((open.number, open.page.finish, open.objects[0].start), (1, None, Some(Time(40))));
    }

    #[test]
    fn page_limit_ends_browsing() {
        let mut c = client(1.0);
        c.start(Time::ZERO);
        let mut pages = 0;
        for _ in 0..2 {
            let m = c.next_object(Time::ZERO).unwrap();
            assert!(c.on_object_done(Time(1), m).is_none());
            let e = c.next_object(Time(1)).unwrap();
            pages += c.on_object_done(Time(2), e).is_some() as u32;
            if let Some(t) = c.deadline() {
                c.on_timer(t);
            }
        }
        assert_eq!(pages, 2);
        assert_eq!(c.deadline(), None);
        assert!(!c.has_next());
    }

    #[test]
    fn a_client_holds_only_the_page_under_way() {
        let mut c = client(5.0);
        c.spec.pages = None;
        c.start(Time::ZERO);
        let mut now = 0;
        for _ in 0..1000 {
            while let Some(o) = c.next_object(Time(now)) {
                now += 1;
                c.on_object_done(Time(now), o);
            }
            if let Some(t) = c.deadline() {
                now = t.0;
                c.on_timer(t);
            }
        }
        assert!(c.objects.capacity() <= 16, "{}", c.objects.capacity());
    }
}
