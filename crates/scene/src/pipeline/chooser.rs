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
/// Weight of a new sample in the in-use search's running cost.
const SMOOTHING: f64 = 0.25;

/// The chooser's state. A snapshot does not keep it: a restored pipeline
/// starts measuring again.
#[derive(Clone, Debug)]
pub(super) struct SearchChooser {
    /// The search the frames run when not probing.
    current: PairSearch,
    /// The running cost of `current`, in seconds per frame (`None` until a
    /// fair sample).
    current_cost: Option<f64>,
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
}

impl Default for SearchChooser {
    fn default() -> Self {
        Self {
            current: PairSearch::Tracker,
            current_cost: None,
            until_probe: BASE_PERIOD,
            period: BASE_PERIOD,
            probe_left: 0,
            last: None,
            alternate: None,
            frames: 0,
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
            self.probe_left = PROBE_FRAMES;
            other(self.current)
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
        if self.alternate.is_some() {
            return;
        }
        let seconds = cost.as_secs_f64();
        if search == self.current {
            if !full {
                self.current_cost = Some(self.current_cost.map_or(seconds, |c| c + SMOOTHING * (seconds - c)));
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
        // The probe's last frame: its sample against the running cost.
        match self.current_cost {
            Some(current) if !full && seconds < HYSTERESIS * current => {
                self.current = search;
                self.current_cost = Some(seconds);
                self.period = BASE_PERIOD;
            }
            // No fair sample of the search in use yet: measure it first.
            None => self.period = BASE_PERIOD,
            _ => self.period = (self.period * 2).min(MAX_PERIOD),
        }
        self.until_probe = self.period;
    }

    /// The search the frames run when not probing.
    #[cfg(all(test, feature = "timing"))]
    pub(super) fn current(&self) -> PairSearch {
        self.current
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
