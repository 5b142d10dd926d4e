//! Golden-section search, the exact oracles' way to the minimum of a convex
//! function of one variable (a distance along a motion or a segment).

/// Where a function takes its least value found, and that value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Minimum {
    /// The argument.
    pub at: f64,
    /// The function's value there.
    pub value: f64,
}

/// The minimum of a convex (or unimodal) `f` on `[lo, hi]` by golden-section
/// search (Kiefer 1953; Press et al., Numerical Recipes, 10.2): each of the
/// `iterations` steps keeps the part of the bracket `[lo, hi]` that holds the
/// minimum, `1 / phi ~ 0.618` of it. The answer is the least of `f(lo)`,
/// `f(hi)` and `f` at the final bracket's middle, the ends first on a tie.
///
/// 80 iterations narrow a unit bracket to about `1e-17`, below the spacing of
/// f64 near 1.
#[must_use]
pub fn convex_min(f: impl Fn(f64) -> f64, lo: f64, hi: f64, iterations: u32) -> Minimum {
    // 1 / phi = (sqrt(5) - 1) / 2.
    let inv_phi = 0.5 * (5f64.sqrt() - 1.0);
    let (mut a, mut b) = (lo, hi);
    for _ in 0..iterations {
        let (x1, x2) = (b - inv_phi * (b - a), a + inv_phi * (b - a));
        if f(x1) <= f(x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    let mut best = Minimum { at: lo, value: f(lo) };
    for at in [hi, 0.5 * (a + b)] {
        let value = f(at);
        if value < best.value {
            best = Minimum { at, value };
        }
    }
    best
}
