//! [`PairSearch::Auto`]: the contact pipeline picks its pair search itself,
//! from what each search costs on the frames it runs.
//!
//! Which search is cheaper depends on the world, not on a count a rule could
//! read: the grid finds every pair again from every box each frame (cheap
//! when nearly everything moves: a pile), the tracker pays only for what
//! moved (cheap when most colliders rest: a level, sleeping bodies), and
//! where the two cross depends on sizes, density and motion. So the chooser
//! measures: it runs one search, and every `period` frames it runs the other
//! for [`PROBE_FRAMES`] frames (a probe) and keeps the cheaper, with a
//! [`HYSTERESIS`] margin for the one in use. A probe that loses doubles the
//! period (up to [`MAX_PERIOD`]), so a world that clearly suits one search
//! pays for probes less and less often; a switch resets it.
//!
//! A probe also costs what its two full reads cost beyond a normal frame
//! (the other search catching up, then the search in use catching up again),
//! and in a large world whose bodies all move that is several frames' worth.
//! So the period is never shorter than the one that keeps those reads under
//! [`PROBE_BUDGET`] of the search's time: the dearer coming back is, the
//! rarer the probes, from the first one on.
//!
//! The search in use is judged by its mean cost over its last [`RECENT`]
//! frames, not by a running average that favours the latest few, nor by a
//! mean over all the frames since it was chosen: a tracker's cost comes in
//! spikes (bodies that fall together leave their fat boxes together, every
//! few frames), which a short average misses when a probe follows a few cheap
//! frames; and in a pile that is forming the tracker's cost climbs for a
//! hundred frames, which a long mean follows only half as fast.
//!
//! A probe that loses by little (its sample within [`CLOSE`] of the search in
//! use) keeps the period: the costs are converging, and the next probe is as
//! likely to win. Only a clear loss doubles it.
//!
//! A probe's sample is one frame, and a tracker's first frames after its
//! catch-up are its cheapest (every fat box fresh, the boxes going stale
//! over the next few): a switch on such a sample is put on probation.
//! [`RECENT`] frames later the new search's cost, the mean of its newest
//! [`SETTLED`] frames (those after its fat boxes have had time to go stale),
//! is compared with the old one's, and the chooser switches back at once if
//! the old is cheaper by the margin (then probing less often, as after a
//! lost probe), instead of waiting out a long period.
//!
//! A frame's cost is the pair search's time, mirror included. The first
//! frame of a search after the other ran reads every collider (its mirror is
//! stale); that frame is not a fair sample and is never recorded, which is
//! why a probe lasts two frames. Both searches give the same candidates, so
//! the choice changes what a frame costs, never what it reports. Without
//! the `timing` feature there is no clock, and `Auto` runs the tracker.

use std::time::Duration;

use crate::grid_search::PairSearch;

/// Frames a probe runs the other search: the first reads every collider
/// (not recorded), the second is the sample.
pub(super) const PROBE_FRAMES: u32 = 2;
/// Frames between probes after a start or a switch.
pub(super) const BASE_PERIOD: u32 = 8;
/// The longest period between probes, reached after six probes lost in a row.
pub(super) const MAX_PERIOD: u32 = 512;
/// The search in use is kept unless the other's cost is below this fraction
/// of its own: frame times vary by a few percent, and a switch costs a frame
/// that reads every collider.
pub(super) const HYSTERESIS: f64 = 0.9;
/// Weight of a new full-read excess in its running estimate.
const SMOOTHING: f64 = 0.25;
/// The samples the search in use is judged by: its last so many fair frames,
/// enough to hold three or four of a tracker's spike cycles of a few frames,
/// few enough to follow a cost that climbs as a pile forms.
pub(super) const RECENT: usize = 16;
/// The newest samples a search on probation is judged by.
pub(super) const SETTLED: usize = RECENT / 2;
/// A lost probe whose sample is below this many times the cost of the search
/// in use keeps the period instead of doubling it.
pub(super) const CLOSE: f64 = 1.25;
/// The share of the pair search's time the probes' full reads may take,
/// amortised over the period.
pub(super) const PROBE_BUDGET: f64 = 0.05;

/// The chooser's state. A snapshot does not keep it: a restored pipeline
/// starts measuring again.
#[derive(Clone, Debug)]
pub(super) struct SearchChooser {
    /// The search the frames run when not probing.
    current: PairSearch,
    /// The last [`RECENT`] fair samples of `current` since it became
    /// current, in seconds.
    window: Window,
    /// The cost of `current` for a window still empty (the mean of the
    /// search switched from, or the winning probe's sample; `None` until a
    /// fair sample).
    last_mean: Option<f64>,
    /// After a switch, until its probation ends: the mean of the search
    /// switched from.
    probation: Option<f64>,
    /// Frames until the next probe.
    until_probe: u32,
    /// Frames between probes now.
    period: u32,
    /// Frames of the running probe left, counting this one (0: no probe).
    probe_left: u32,
    /// The search of the last frame (the next differing one reads every collider).
    last: Option<PairSearch>,
    /// A fixed schedule instead of the clock: alternate every so many frames.
    alternate: Option<u32>,
    /// Frames run, for the alternating schedule.
    frames: u64,
    /// The running excess of a full-read frame over a normal frame of the
    /// search in use, in seconds (0 until one is seen).
    full_excess: f64,
}

impl Default for SearchChooser {
    fn default() -> Self {
        Self {
            current: PairSearch::Tracker,
            window: Window::default(),
            last_mean: None,
            probation: None,
            until_probe: BASE_PERIOD,
            period: BASE_PERIOD,
            probe_left: 0,
            last: None,
            alternate: None,
            frames: 0,
            full_excess: 0.0,
        }
    }
}

impl SearchChooser {
    /// A chooser that ignores the clock and alternates the searches every
    /// `frames` frames (tests cross the switch both ways with it).
    pub(super) fn alternating(frames: u32) -> Self {
        Self { alternate: Some(frames.max(1)), ..Self::default() }
    }

    /// The search this frame runs, and whether it differs from the last
    /// frame's (then the mirror must read every collider).
    pub(super) fn next(&mut self) -> (PairSearch, bool) {
        let search = if let Some(every) = self.alternate {
            if (self.frames / u64::from(every)) % 2 == 0 {
                PairSearch::Tracker
            } else {
                PairSearch::Grid
            }
        } else if !cfg!(feature = "timing") {
            PairSearch::Tracker
        } else if self.probe_left > 0 {
            other(self.current)
        } else if self.until_probe == 0 {
            if let Some(before) = self.probation.take() {
                self.end_probation(before)
            } else {
                self.probe_left = PROBE_FRAMES;
                other(self.current)
            }
        } else {
            self.until_probe -= 1;
            self.current
        };
        self.frames += 1;
        let switched = self.last.is_some_and(|last| last != search);
        self.last = Some(search);
        (search, switched)
    }

    /// Records the cost of the frame that [`next`](Self::next) gave `search`
    /// (`full`: it read every collider, so it is no sample), and closes a
    /// probe on its last frame.
    pub(super) fn record(&mut self, search: PairSearch, cost: Duration, full: bool) {
        if self.alternate.is_some() || !cfg!(feature = "timing") {
            return;
        }
        let seconds = cost.as_secs_f64();
        if full {
            if let Some(current) = self.current_cost() {
                let excess = (seconds - current).max(0.0);
                self.full_excess += SMOOTHING * (excess - self.full_excess);
            }
        }
        if search == self.current {
            if !full {
                self.window.push(seconds);
            }
            return;
        }
        if self.probe_left == 0 {
            return;
        }
        self.probe_left -= 1;
        if self.probe_left > 0 {
            return;
        }
        // The probe's last frame: its sample against the mean of the search
        // in use.
        let current = self.current_cost();
        match current {
            Some(current) if !full && seconds < HYSTERESIS * current => {
                self.current = search;
                self.last_mean = Some(seconds);
                self.window = Window::default();
                self.window.push(seconds);
                self.period = BASE_PERIOD.max(self.amortising_period());
                self.probation = Some(current);
                self.until_probe = RECENT as u32;
                return;
            }
            // No fair sample of the search in use yet: measure it first.
            None => self.period = BASE_PERIOD,
            Some(current) if seconds < CLOSE * current => {
                self.period = self.period.max(self.amortising_period()).min(MAX_PERIOD);
            }
            _ => self.period = (self.period * 2).max(self.amortising_period()).min(MAX_PERIOD),
        }
        self.until_probe = self.period;
    }

    /// The end of a switch's probation, in place of a probe: the search to
    /// run now. The search switched to keeps its place unless the one
    /// switched from (`before`, its mean then) is cheaper than its mean by
    /// the [`HYSTERESIS`] margin; then the chooser goes back to it, and the
    /// period doubles as after a lost probe.
    fn end_probation(&mut self, before: f64) -> PairSearch {
        let kept = self.window.newest_mean(SETTLED).is_none_or(|now| before >= HYSTERESIS * now);
        if !kept {
            self.current = other(self.current);
            self.window = Window::default();
            self.last_mean = Some(before);
            self.period = (self.period * 2).max(self.amortising_period()).min(MAX_PERIOD);
        }
        self.until_probe = self.period;
        self.current
    }

    /// The cost of `current` in seconds per frame: the mean of its window,
    /// or of the last one while the window is empty (`None` before any
    /// fair sample).
    fn current_cost(&self) -> Option<f64> {
        self.window.mean().or(self.last_mean)
    }

    /// The shortest period that keeps a probe's two full reads within
    /// [`PROBE_BUDGET`] of the search's time over the period, at most
    /// [`MAX_PERIOD`].
    fn amortising_period(&self) -> u32 {
        let Some(current) = self.current_cost().filter(|&c| c > 0.0) else {
            return BASE_PERIOD;
        };
        let frames = 2.0 * self.full_excess / (PROBE_BUDGET * current);
        if frames >= f64::from(MAX_PERIOD) {
            MAX_PERIOD
        } else {
            (frames.ceil() as u32).max(BASE_PERIOD)
        }
    }

    /// The search the frames run when not probing.
    #[cfg(all(test, feature = "timing"))]
    pub(super) fn current(&self) -> PairSearch {
        self.current
    }
}

/// The last [`RECENT`] frame costs, in a ring.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    samples: [f64; RECENT],
    /// Samples pushed, of which the last `RECENT` are kept.
    pushed: usize,
}

impl Window {
    fn push(&mut self, seconds: f64) {
        self.samples[self.pushed % RECENT] = seconds;
        self.pushed += 1;
    }

    /// The mean of the samples kept (`None`: no sample).
    fn mean(&self) -> Option<f64> {
        self.newest_mean(RECENT)
    }

    /// The mean of the newest `n <= RECENT` samples, or of all when fewer.
    fn newest_mean(&self, n: usize) -> Option<f64> {
        let n = n.min(self.pushed).min(RECENT);
        let sum: f64 = (1..=n).map(|back| self.samples[(self.pushed - back) % RECENT]).sum();
        (n > 0).then(|| sum / n as f64)
    }
}

/// The other concrete search.
fn other(search: PairSearch) -> PairSearch {
    match search {
        PairSearch::Grid => PairSearch::Tracker,
        _ => PairSearch::Grid,
    }
}

#[cfg(all(test, feature = "timing"))]
mod tests {
    use super::*;

    /// Runs `frames` frames where the tracker costs `tracker` and the grid
    /// `grid` (ms), a switching frame being no sample; returns the searches run.
    fn run(chooser: &mut SearchChooser, frames: usize, tracker: f64, grid: f64) -> Vec<PairSearch> {
        (0..frames)
            .map(|_| {
                let (search, switched) = chooser.next();
                let ms = if search == PairSearch::Grid { grid } else { tracker };
                chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
                search
            })
            .collect()
    }

    #[test]
    fn switches_to_the_cheaper_search_and_back() {
        let mut chooser = SearchChooser::default();
        let ran = run(&mut chooser, 20, 2.0, 1.0);
        assert_eq!(chooser.current(), PairSearch::Grid, "the grid at half the cost wins its first probe");
        // Frames 0-7 tracker, then the two probe frames on the grid.
        assert!(ran[..BASE_PERIOD as usize].iter().all(|&s| s == PairSearch::Tracker));
        // The world changes: now the tracker is cheaper; the next probe finds it.
        run(&mut chooser, 2 * (BASE_PERIOD + PROBE_FRAMES) as usize, 1.0, 2.0);
        assert_eq!(chooser.current(), PairSearch::Tracker);
    }

    #[test]
    fn a_spiky_search_is_judged_by_its_mean() {
        // The tracker costs 1 ms a frame with a 10 ms spike every sixth (a
        // batch of fat boxes left at once): 2.1 ms a frame over the first
        // period. The grid's steady 1.5 ms wins the first probe, although the
        // frames just before it were the tracker's cheap ones.
        let mut chooser = SearchChooser::default();
        for frame in 0..BASE_PERIOD + PROBE_FRAMES {
            let (search, switched) = chooser.next();
            let ms = match search {
                PairSearch::Grid => 1.5,
                _ if frame % 6 == 2 => 10.0,
                _ => 1.0,
            };
            chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
        }
        assert_eq!(chooser.current(), PairSearch::Grid);
    }

    #[test]
    fn the_window_follows_a_late_change() {
        // 1,000 frames at 1 ms, then 16 at 3 ms: the window holds only the
        // new cost, where the mean of all (1.03 ms) would keep a
        // cheaper-looking search for another period.
        let mut window = Window::default();
        (0..1000).for_each(|_| window.push(1.0));
        assert_eq!(window.mean(), Some(1.0));
        (0..RECENT).for_each(|_| window.push(3.0));
        assert_eq!(window.mean(), Some(3.0));
        // A spike every fourth frame counts at its share, wherever the
        // window starts in the cycle.
        let mut window = Window::default();
        for i in 0..100 {
            window.push(if i % 4 == 0 { 10.0 } else { 1.0 });
            if i >= RECENT {
                assert_eq!(window.mean(), Some(3.25));
            }
        }
    }

    #[test]
    fn follows_a_climbing_cost_to_the_crossing() {
        // A pile forming: the tracker's cost climbs from 0.2 to 1.4 ms over
        // 130 frames, then stays, with a spike of 0.8 ms more every fifth
        // frame; the grid's climbs from 0.4 to 0.9 ms over 160 frames. A
        // full read costs 0.8 ms more than a normal frame. The grid is
        // cheaper by the hysteresis from frame 15 on; the chooser is on it
        // for good by frame 60 (a mean over all the frames since the last
        // probe, with the period doubled by each lost probe, would take
        // until frame 94).
        let mut chooser = SearchChooser::default();
        let mut on_grid_from = None;
        for frame in 0..300 {
            let t = |frames: f64| (frame as f64 / frames).min(1.0);
            let (search, switched) = chooser.next();
            let ms = match search {
                PairSearch::Grid => 0.4 + 0.5 * t(160.0),
                _ => 0.2 + 1.2 * t(130.0) + if frame % 5 == 4 { 0.8 } else { 0.0 },
            } + if switched { 0.8 } else { 0.0 };
            chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
            if chooser.current() == PairSearch::Grid {
                on_grid_from.get_or_insert(frame);
            } else {
                on_grid_from = None;
            }
        }
        let from = on_grid_from.expect("on the grid at the end");
        assert!(from < 60, "on the grid for good only from frame {from}");
    }

    #[test]
    fn a_switch_on_a_lucky_sample_is_taken_back() {
        // The grid costs 1 ms a frame; the tracker 2 ms, but 0.5 ms on its
        // frame after a catch-up (the probe's sample; the catch-up itself
        // 5 ms). Each probe of the tracker wins on that sample; probation
        // sends the chooser back to the grid 16 frames later, so the frames
        // cost little more than the grid's.
        let mut chooser = SearchChooser::default();
        let (mut total, mut last, mut run) = (0.0, None, 0);
        for _ in 0..2000 {
            let (search, switched) = chooser.next();
            run = if Some(search) == last { run + 1 } else { 0 };
            last = Some(search);
            let ms = match search {
                PairSearch::Grid => 1.0,
                _ if switched => 5.0,
                _ if run == 1 => 0.5,
                _ => 2.0,
            };
            total += ms;
            chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
        }
        assert!(total / 2000.0 < 1.25, "{} ms a frame against the grid's 1", total / 2000.0);
    }

    #[test]
    fn probation_judges_the_settled_frames() {
        // The grid costs 1 ms a frame. The tracker costs 0.5 ms on its first
        // eight frames after a catch-up, then 1.5 ms once its fresh fat
        // boxes have gone stale (its catch-up itself 5 ms). The mean of its
        // 16 frames of probation, about 1.06 ms, is within the hysteresis of
        // the grid's; the mean of the newest 8, 1.5 ms, is not. The switch
        // to it on its cheap sample is taken back, and the chooser spends
        // most frames on the grid.
        let mut chooser = SearchChooser::default();
        run(&mut chooser, BASE_PERIOD as usize + 2, 1.5, 1.0);
        assert_eq!(chooser.current(), PairSearch::Grid);
        let (mut tracker_frames, mut run) = (0, 0u32);
        for _ in 0..1000 {
            let (search, switched) = chooser.next();
            run = if switched { 0 } else { run + 1 };
            let ms = match search {
                PairSearch::Grid => 1.0,
                _ if switched => 5.0,
                _ if run <= 8 => 0.5,
                _ => 1.5,
            };
            tracker_frames += usize::from(search == PairSearch::Tracker);
            chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
        }
        assert_eq!(chooser.current(), PairSearch::Grid);
        assert!(tracker_frames < 100, "{tracker_frames} of 1,000 frames on the tracker");
    }

    #[test]
    fn keeps_the_search_in_use_within_the_hysteresis() {
        let mut chooser = SearchChooser::default();
        run(&mut chooser, 1000, 1.0, 0.95);
        assert_eq!(chooser.current(), PairSearch::Tracker, "5% cheaper is within the margin");
    }

    #[test]
    fn losing_probes_come_less_and_less_often() {
        let mut chooser = SearchChooser::default();
        let ran = run(&mut chooser, 4000, 1.0, 3.0);
        let probes = ran.windows(2).filter(|w| w[0] == PairSearch::Tracker && w[1] == PairSearch::Grid).count();
        // Periods 8, 16, ..., 512, then every 512 frames: about 14 probes in 4000 frames.
        assert!((8..=16).contains(&probes), "{probes} probes");
        assert_eq!(chooser.current(), PairSearch::Tracker);
    }

    /// Runs `frames` frames where a search's first frame after the other
    /// (a full read) costs `full` ms; returns the searches run.
    fn run_with_full(
        chooser: &mut SearchChooser,
        frames: usize,
        tracker: f64,
        grid: f64,
        full: f64,
    ) -> Vec<PairSearch> {
        (0..frames)
            .map(|_| {
                let (search, switched) = chooser.next();
                let ms = if switched {
                    full
                } else if search == PairSearch::Grid {
                    grid
                } else {
                    tracker
                };
                chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
                search
            })
            .collect()
    }

    fn probes(ran: &[PairSearch]) -> usize {
        ran.windows(2).filter(|w| w[0] != w[1]).count() / 2
    }

    #[test]
    fn dear_full_reads_make_probes_rare_from_the_first_one() {
        // A full read costs 40 normal frames: after the first lost probe the
        // period is the longest, where doubling alone would take six probes.
        let mut chooser = SearchChooser::default();
        let ran = run_with_full(&mut chooser, 4000, 1.0, 3.0, 41.0);
        let n = probes(&ran);
        // The first probe at frame 8, then one every 512 frames.
        assert!((7..=9).contains(&n), "{n} probes");
        // The reads' share of the time stays near the budget.
        let total: f64 = ran
            .windows(2)
            .map(|w| {
                if w[0] != w[1] {
                    41.0
                } else if w[1] == PairSearch::Grid {
                    3.0
                } else {
                    1.0
                }
            })
            .sum();
        let reads = 2.0 * n as f64 * 40.0;
        assert!(reads / total < 2.0 * PROBE_BUDGET + 0.05, "full reads take {:.3} of the time", reads / total);
        // Cheap full reads keep the doubling schedule.
        let mut chooser = SearchChooser::default();
        let cheap = probes(&run_with_full(&mut chooser, 4000, 1.0, 3.0, 1.0));
        assert!((8..=16).contains(&cheap), "{cheap} probes");
    }

    #[test]
    fn a_switch_still_happens_when_full_reads_are_dear() {
        let mut chooser = SearchChooser::default();
        run_with_full(&mut chooser, 20, 2.0, 1.0, 80.0);
        assert_eq!(chooser.current(), PairSearch::Grid, "the grid at half the cost wins its first probe");
        // The world changes; the tracker becomes cheaper: found within the
        // longest period after the switch's probation.
        run_with_full(&mut chooser, MAX_PERIOD as usize + RECENT + 2 * PROBE_FRAMES as usize + 2, 1.0, 2.0, 80.0);
        assert_eq!(chooser.current(), PairSearch::Tracker);
    }

    #[test]
    fn a_switch_frame_is_no_sample() {
        // The grid's first frame (a full read) is slow, its second cheap: the
        // probe decides on the second.
        let mut chooser = SearchChooser::default();
        for _ in 0..BASE_PERIOD + PROBE_FRAMES {
            let (search, switched) = chooser.next();
            let ms = match (search, switched) {
                (PairSearch::Grid, true) => 100.0,
                (PairSearch::Grid, false) => 0.5,
                _ => 1.0,
            };
            chooser.record(search, Duration::from_secs_f64(ms * 1e-3), switched);
        }
        assert_eq!(chooser.current(), PairSearch::Grid);
    }

    #[test]
    fn alternating_schedule_ignores_costs() {
        let mut chooser = SearchChooser::alternating(3);
        let ran = run(&mut chooser, 12, 1.0, 100.0);
        let expect = [PairSearch::Tracker, PairSearch::Grid].repeat(2);
        let blocks: Vec<_> = ran.chunks(3).map(|c| c[0]).collect();
        assert_eq!(blocks, expect);
        assert!(ran.chunks(3).all(|c| c.iter().all(|&s| s == c[0])));
    }
}
