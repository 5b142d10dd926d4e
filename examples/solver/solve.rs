//! A sequential-impulse contact solver over proxima's contact manifolds, in
//! the "soft step" form of Box2D v3 (Catto, "Solver2D", 2024): each step is
//! split into substeps; each substep integrates velocities, warm starts,
//! solves the contacts with a soft position bias, integrates positions and
//! then relaxes (solves again without the bias, so the push-out velocity does
//! not turn into bounce). Contact anchors stay fixed for the step; the
//! separation is recomputed from the bodies' current poses every substep.

use std::ops::Range;

use proxima::narrowphase::{Real, Vector};
use proxima::scene::{ColliderHandle, ManifoldPair};

use super::body::Body;

/// How far (m) a point may be from last step's point of the same pair, with
/// another id, and still take its impulses.
const MATCH_DISTANCE: Real = 0.02;

/// Tuning of [`Solver`].
#[derive(Clone, Copy, Debug)]
pub struct SolverOptions {
    /// Gravity (world frame, m/s^2).
    pub gravity: Vector,
    /// Substeps per step: each integrates, solves and relaxes once.
    pub substeps: usize,
    /// Biased velocity iterations per substep.
    pub iterations: usize,
    /// Unbiased (relax) velocity iterations per substep.
    pub relax_iterations: usize,
    /// Coulomb friction coefficient of every contact.
    pub friction: Real,
    /// Stiffness of the soft contact, as a spring frequency (Hz); at most a
    /// quarter of the substep rate is used (Box2D's bound: a stiffer spring
    /// is not resolved by the substeps).
    pub contact_hertz: Real,
    /// Damping ratio of the soft contact (over-damped above 1).
    pub damping_ratio: Real,
    /// Largest velocity (m/s) at which the bias pushes overlapping bodies apart.
    pub max_pushout: Real,
    /// Penetration (m) the bias leaves alone, so resting contacts keep touching.
    pub slop: Real,
    /// Rolling resistance as a lever arm (m): the relative rolling of a
    /// round body (sphere, capsule) and what it touches is resisted by an angular impulse of at most this
    /// times the manifold's normal impulse (a rolling ball or lying capsule
    /// slows down and stops, as on a real floor; without it a capsule that
    /// was nudged rolls forever).
    pub rolling_resistance: Real,
    /// Start each step from last step's impulses, matched by feature id.
    pub warm_start: bool,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            gravity: Vector::new(0.0, -9.81, 0.0),
            substeps: 8,
            iterations: 1,
            relax_iterations: 1,
            friction: 0.6,
            contact_hertz: 60.0,
            damping_ratio: 10.0,
            max_pushout: 3.0,
            slop: 0.0,
            rolling_resistance: 0.05,
            warm_start: true,
        }
    }
}

/// Counts of one step.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepStats {
    /// Contact points solved.
    pub points: usize,
    /// Points that found last step's point (same pair, same id) and started
    /// from its impulses.
    pub warm_started: usize,
    /// Time in the solver (preparing, substeps, storing impulses).
    pub solve_time: std::time::Duration,
}

/// One manifold as a constraint: the two bodies, the normal (from `a` to
/// `b`) and a tangent basis, and its points in [`Solver::points`].
#[derive(Clone, Debug)]
struct Manifold {
    a: usize,
    b: usize,
    pair: (ColliderHandle, ColliderHandle),
    normal: Vector,
    tangents: [Vector; 2],
    points: Range<usize>,
    /// Effective masses of the relative rotation about each tangent,
    /// `1 / (t . (I_a^-1 + I_b^-1) t)`, and the accumulated rolling impulse
    /// (per substep, not warm started).
    rolling_mass: [Real; 2],
    rolling_impulse: [Real; 2],
}

/// One contact point: anchors fixed for the step, effective masses, and the
/// accumulated impulses (per substep).
#[derive(Clone, Debug)]
struct Point {
    id: u32,
    /// `r_a = p - x_a`, `r_b = p - x_b` (world frame) with `p` the midpoint
    /// of the witness points.
    r_a: Vector,
    r_b: Vector,
    /// The same offsets in each body's frame, to follow the bodies' motion.
    local_a: Vector,
    local_b: Vector,
    /// `-depth` when found; as the bodies move the separation is
    /// `s = base + n . ((x_b + R_b l_b) - (x_a + R_a l_a))` (both anchors
    /// start at `p`, so the second term starts at zero).
    base_separation: Real,
    normal_mass: Real,
    tangent_mass: [Real; 2],
    normal_impulse: Real,
    tangent_impulse: [Real; 2],
}

/// Last step's impulses of one point, keyed by `(a, b, id)`.
#[derive(Clone, Copy, Debug)]
struct Cached {
    key: (ColliderHandle, ColliderHandle, u32),
    /// The anchor (world frame) when it was solved.
    point: Vector,
    normal: Vector,
    normal_impulse: Real,
    /// The friction impulse as a world vector, re-projected on the new
    /// tangent basis (the basis may turn with the normal).
    friction_impulse: Vector,
}

/// The soft-constraint coefficients for a spring of `hertz` and damping ratio
/// `zeta` stepped with `h` (Catto, "Soft Step", 2024): with `w = 2 pi hertz`,
/// `a1 = 2 zeta + h w`, `a2 = h w a1`, `a3 = 1 / (1 + a2)`:
/// `bias_rate = w / a1`, `mass_scale = a2 a3`, `impulse_scale = a3`.
#[derive(Clone, Copy, Debug)]
struct Softness {
    bias_rate: Real,
    mass_scale: Real,
    impulse_scale: Real,
}

impl Softness {
    fn new(hertz: Real, zeta: Real, h: Real) -> Self {
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Self { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
    }
}

/// The contact solver: its constraints live for one step, its cache of
/// impulses from one step to the next.
#[derive(Debug, Default)]
pub struct Solver {
    pub options: SolverOptions,
    manifolds: Vec<Manifold>,
    points: Vec<Point>,
    cache: Vec<Cached>,
}

impl Solver {
    pub fn new(options: SolverOptions) -> Self {
        Self { options, ..Self::default() }
    }

    /// Advances `bodies` by `dt` under gravity and the contacts of
    /// `manifolds` (this step's pipeline output; `body_of` maps a collider
    /// to its body's index).
    pub fn step(
        &mut self,
        bodies: &mut [Body],
        manifolds: &[ManifoldPair],
        body_of: impl Fn(ColliderHandle) -> usize,
        dt: Real,
    ) -> StepStats {
        let t0 = std::time::Instant::now();
        let o = self.options;
        let h = dt / o.substeps as Real;
        let mut stats = self.prepare(bodies, manifolds, body_of);
        let soft = Softness::new(o.contact_hertz.min(0.25 / h), o.damping_ratio, h);
        for _ in 0..o.substeps {
            bodies.iter_mut().for_each(|b| b.integrate_velocity(&o.gravity, h));
            self.apply_warm_start(bodies);
            for _ in 0..o.iterations {
                self.solve(bodies, Some(&soft), h);
            }
            bodies.iter_mut().for_each(|b| b.integrate_position(h));
            for _ in 0..o.relax_iterations {
                self.solve(bodies, None, h);
            }
        }
        self.store_impulses(bodies);
        stats.solve_time = t0.elapsed();
        stats
    }

    /// Builds a constraint per manifold: anchors, tangents, effective masses
    /// `k = 1/m_a + 1/m_b + (r_a x n) . I_a^-1 (r_a x n) + (r_b x n) . I_b^-1 (r_b x n)`
    /// (and the same with each tangent), and the warm-start impulses of the
    /// points whose `(a, b, id)` was solved last step.
    fn prepare(
        &mut self,
        bodies: &[Body],
        pairs: &[ManifoldPair],
        body_of: impl Fn(ColliderHandle) -> usize,
    ) -> StepStats {
        self.manifolds.clear();
        self.points.clear();
        let mut stats = StepStats::default();
        for pair in pairs {
            let (a, b) = (body_of(pair.a), body_of(pair.b));
            let (ba, bb) = (&bodies[a], &bodies[b]);
            let normal = pair.manifold.normal.into_inner();
            let tangents = tangent_basis(&normal);
            let start = self.points.len();
            for mp in pair.manifold.points() {
                let p = proxima::nalgebra::center(&mp.point_a, &mp.point_b).coords;
                let r_a = p - ba.pose.translation.vector;
                let r_b = p - bb.pose.translation.vector;
                let k = |d: &Vector| {
                    let (ra_d, rb_d) = (r_a.cross(d), r_b.cross(d));
                    ba.inv_mass + bb.inv_mass + ra_d.dot(&(ba.inv_inertia * ra_d)) + rb_d.dot(&(bb.inv_inertia * rb_d))
                };
                let inv = |k: Real| if k > 0.0 { 1.0 / k } else { 0.0 };
                let mut point = Point {
                    id: mp.id,
                    r_a,
                    r_b,
                    local_a: ba.pose.rotation.inverse_transform_vector(&r_a),
                    local_b: bb.pose.rotation.inverse_transform_vector(&r_b),
                    base_separation: -mp.depth,
                    normal_mass: inv(k(&normal)),
                    tangent_mass: [inv(k(&tangents[0])), inv(k(&tangents[1]))],
                    normal_impulse: 0.0,
                    tangent_impulse: [0.0; 2],
                };
                if self.options.warm_start {
                    if let Some(c) = self.cached((pair.a, pair.b), mp.id, &p, &normal) {
                        point.normal_impulse = c.normal_impulse;
                        point.tangent_impulse =
                            [c.friction_impulse.dot(&tangents[0]), c.friction_impulse.dot(&tangents[1])];
                        stats.warm_started += 1;
                    }
                }
                self.points.push(point);
            }
            let points = start..self.points.len();
            let inv_inertia = ba.inv_inertia + bb.inv_inertia;
            let angular = |t: &Vector| {
                let k = t.dot(&(inv_inertia * t));
                if k > 0.0 {
                    1.0 / k
                } else {
                    0.0
                }
            };
            // Only contacts of a round body resist rolling (a box's corners do already).
            let rolls = ba.rolls || bb.rolls;
            let rolling_mass = if rolls { [angular(&tangents[0]), angular(&tangents[1])] } else { [0.0; 2] };
            let (pair, rolling_impulse) = ((pair.a, pair.b), [0.0; 2]);
            self.manifolds.push(Manifold { a, b, pair, normal, tangents, points, rolling_mass, rolling_impulse });
        }
        stats.points = self.points.len();
        stats
    }

    /// Last step's point of the pair `(a, b)` for a point with this id at
    /// `point` (world frame): the one with the same id whose normal is within
    /// 25 degrees (the closest normal if a mesh pair repeats the id in
    /// several manifolds), else the nearest within [`MATCH_DISTANCE`] with
    /// such a normal. The second rule keeps the impulses when a manifold's
    /// ids change but its points do not: two boxes resting face on face
    /// get the same corners whichever face the narrowphase takes as the
    /// reference, under different ids.
    fn cached(
        &self,
        pair: (ColliderHandle, ColliderHandle),
        id: u32,
        point: &Vector,
        normal: &Vector,
    ) -> Option<&Cached> {
        let first = self.cache.partition_point(|c| (c.key.0, c.key.1) < pair);
        let same_pair = self.cache[first..].iter().take_while(|c| (c.key.0, c.key.1) == pair);
        let aligned = same_pair.filter(|c| c.normal.dot(normal) > 0.9);
        let mut by_id: Option<(&Cached, Real)> = None;
        let mut by_distance: Option<(&Cached, Real)> = None;
        for c in aligned {
            if c.key.2 == id {
                let cos = c.normal.dot(normal);
                if by_id.is_none_or(|(_, best)| cos > best) {
                    by_id = Some((c, cos));
                }
            }
            let d = (c.point - point).norm_squared();
            if d < MATCH_DISTANCE * MATCH_DISTANCE && by_distance.is_none_or(|(_, best)| d < best) {
                by_distance = Some((c, d));
            }
        }
        by_id.or(by_distance).map(|(c, _)| c)
    }

    /// Applies every point's accumulated impulse (normal and friction), and
    /// starts the substep's rolling impulses from zero (their bound is a
    /// substep's normal impulse).
    fn apply_warm_start(&mut self, bodies: &mut [Body]) {
        for m in &mut self.manifolds {
            m.rolling_impulse = [0.0; 2];
            for p in &self.points[m.points.clone()] {
                let impulse = m.normal * p.normal_impulse
                    + m.tangents[0] * p.tangent_impulse[0]
                    + m.tangents[1] * p.tangent_impulse[1];
                bodies[m.a].apply_impulse(&p.r_a, &-impulse);
                bodies[m.b].apply_impulse(&p.r_b, &impulse);
            }
        }
    }

    /// One Gauss-Seidel pass over the manifolds: friction, then the normal.
    ///
    /// Normal, with relative velocity `v_n = n . (v_b + w_b x r_b - v_a - w_a x r_a)`
    /// and current separation `s`:
    /// `dlambda = -m_n mass_scale (v_n + bias) - impulse_scale lambda`, then
    /// `lambda = max(lambda + dlambda, 0)`. A separated point (`s > 0`, a
    /// speculative contact) has `bias = s / h`: the bodies may approach by
    /// `s` this substep and no more. With `soft`, an overlapping point has
    /// `bias = max(bias_rate min(s + slop, 0), -max_pushout)` and the soft
    /// scales; without (relax), `bias = 0` and rigid scales (1, 0).
    /// Friction: `dlambda_t = -m_t (t . v)` per tangent, the pair clamped to
    /// the disc `|lambda_t| <= mu lambda_n`. Rolling resistance likewise on
    /// the relative angular velocity about the tangents, per manifold.
    fn solve(&mut self, bodies: &mut [Body], soft: Option<&Softness>, h: Real) {
        let o = &self.options;
        for m in &mut self.manifolds {
            let (ba, bb) = (&bodies[m.a], &bodies[m.b]);
            let (mut va, mut wa, mut vb, mut wb) = (ba.linvel, ba.angvel, bb.linvel, bb.angvel);
            let (ma, mb, ia, ib) = (ba.inv_mass, bb.inv_mass, ba.inv_inertia, bb.inv_inertia);
            let (xa, xb, qa, qb) =
                (ba.pose.translation.vector, bb.pose.translation.vector, ba.pose.rotation, bb.pose.rotation);
            let points = &mut self.points[m.points.clone()];
            for p in points.iter_mut() {
                let dv = vb + wb.cross(&p.r_b) - va - wa.cross(&p.r_a);
                let vt = [m.tangents[0].dot(&dv), m.tangents[1].dot(&dv)];
                let old = p.tangent_impulse;
                let mut new = [old[0] - p.tangent_mass[0] * vt[0], old[1] - p.tangent_mass[1] * vt[1]];
                let max = o.friction * p.normal_impulse;
                let len = (new[0] * new[0] + new[1] * new[1]).sqrt();
                if len > max {
                    let scale = max / len;
                    new = [new[0] * scale, new[1] * scale];
                }
                p.tangent_impulse = new;
                let impulse = m.tangents[0] * (new[0] - old[0]) + m.tangents[1] * (new[1] - old[1]);
                va -= impulse * ma;
                wa -= ia * p.r_a.cross(&impulse);
                vb += impulse * mb;
                wb += ib * p.r_b.cross(&impulse);
            }
            for p in points.iter_mut() {
                let d = (xb + qb * p.local_b) - (xa + qa * p.local_a);
                let s = p.base_separation + m.normal.dot(&d);
                let (bias, mass_scale, impulse_scale) = if s > 0.0 {
                    (s / h, 1.0, 0.0)
                } else if let Some(soft) = soft {
                    let bias = (soft.bias_rate * (s + o.slop).min(0.0)).max(-o.max_pushout);
                    (bias, soft.mass_scale, soft.impulse_scale)
                } else {
                    (0.0, 1.0, 0.0)
                };
                let dv = vb + wb.cross(&p.r_b) - va - wa.cross(&p.r_a);
                let vn = m.normal.dot(&dv);
                let delta = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
                let new = (p.normal_impulse + delta).max(0.0);
                let impulse = m.normal * (new - p.normal_impulse);
                p.normal_impulse = new;
                va -= impulse * ma;
                wa -= ia * p.r_a.cross(&impulse);
                vb += impulse * mb;
                wb += ib * p.r_b.cross(&impulse);
            }
            // Rolling resistance: the relative angular velocity about each
            // tangent, `t . (w_b - w_a)`, is driven to zero with the pair
            // clamped to the disc `|lambda_r| <= rolling_resistance * sum lambda_n`.
            let max = o.rolling_resistance * points.iter().map(|p| p.normal_impulse).sum::<Real>();
            let dw = wb - wa;
            let old = m.rolling_impulse;
            let mut new = [
                old[0] - m.rolling_mass[0] * m.tangents[0].dot(&dw),
                old[1] - m.rolling_mass[1] * m.tangents[1].dot(&dw),
            ];
            let len = (new[0] * new[0] + new[1] * new[1]).sqrt();
            if len > max {
                let scale = if len > 0.0 { max / len } else { 0.0 };
                new = [new[0] * scale, new[1] * scale];
            }
            m.rolling_impulse = new;
            let torque = m.tangents[0] * (new[0] - old[0]) + m.tangents[1] * (new[1] - old[1]);
            wa -= ia * torque;
            wb += ib * torque;
            // A static body's velocities stay zero: its inverse mass and inertia are.
            (bodies[m.a].linvel, bodies[m.a].angvel) = (va, wa);
            (bodies[m.b].linvel, bodies[m.b].angvel) = (vb, wb);
        }
    }

    /// Keeps this step's impulses for the next step's warm start, sorted by
    /// `(a, b, id)` (a stable sort: equal keys keep the manifolds' order).
    fn store_impulses(&mut self, bodies: &[Body]) {
        self.cache.clear();
        for m in &self.manifolds {
            for p in &self.points[m.points.clone()] {
                self.cache.push(Cached {
                    key: (m.pair.0, m.pair.1, p.id),
                    point: bodies[m.a].pose.translation.vector + p.r_a,
                    normal: m.normal,
                    normal_impulse: p.normal_impulse,
                    friction_impulse: m.tangents[0] * p.tangent_impulse[0] + m.tangents[1] * p.tangent_impulse[1],
                });
            }
        }
        self.cache.sort_by_key(|c| c.key);
    }
}

/// An orthonormal basis `(t1, t2)` of the plane normal to unit `n`, a
/// continuous function of `n` away from `n_z = -1` (Duff et al., "Building an
/// Orthonormal Basis, Revisited", JCGT 2017).
fn tangent_basis(n: &Vector) -> [Vector; 2] {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    [Vector::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x), Vector::new(b, sign + n.y * n.y * a, -n.y)]
}
