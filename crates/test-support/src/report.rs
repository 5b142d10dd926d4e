//! What a randomized test keeps of its cases for its report: the worst error
//! with the case that made it, and the first failures with their count.

/// A running maximum with the case that produced it, for reporting.
#[derive(Debug, Default, Clone)]
pub struct Worst {
    /// The largest value seen (0 before any).
    pub value: f64,
    /// The description of the case that gave `value`.
    pub case: String,
}

impl Worst {
    /// Keeps `value` and its case (described only then) if it is larger.
    pub fn see(&mut self, value: f64, case: impl FnOnce() -> String) {
        if value > self.value {
            self.value = value;
            self.case = case();
        }
    }
}

/// Failed cases: all counted, the first [`Failures::KEPT`] described.
#[derive(Debug, Default, Clone)]
pub struct Failures {
    count: usize,
    first: Vec<String>,
}

impl Failures {
    /// How many failures keep their description.
    pub const KEPT: usize = 8;

    /// Records a failure; `describe` runs only for the first [`Self::KEPT`].
    pub fn push(&mut self, describe: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.len() < Self::KEPT {
            self.first.push(describe());
        }
    }

    /// How many failures were recorded.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether none was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Panics with the count and the first descriptions if any failure was
    /// recorded.
    ///
    /// # Panics
    /// If a failure was recorded.
    pub fn assert_none(&self, name: &str) {
        assert!(self.is_empty(), "{name}: {} failures, first: {:#?}", self.count, self.first);
    }
}
