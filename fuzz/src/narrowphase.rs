//! Properties of every narrowphase function on floats decoded from fuzz
//! bytes: the body of `fuzz_targets/narrowphase.rs` and of the proptest suite
//! `crates/narrowphase/tests/fuzz_properties.rs` (which include this file).
//!
//! For every input:
//! - no function panics;
//! - each validating constructor returns exactly the error its documentation
//!   promises (checked against the rules restated here), and every accepted
//!   shape has a valid bounding box;
//! - the SIMD ray/box kernels equal the scalar slab test bit for bit, and the
//!   box-triangle lane kernel the per-pair manifold.
//!
//! When every input is finite and at most `1e6` in magnitude ("checked"
//! cases), also:
//! - symmetric functions are symmetric (`intersects_x_x(a, b) == (b, a)`,
//!   contact normals flip), and the AABB special cases agree with the OBB ones;
//! - answers agree with the `f64` oracle of [`crate::oracle`] outside a band
//!   of `tol = 1e-5 * (1 + scale)` around the decision boundary, `scale`
//!   being the largest magnitude in the case (f32 keeps 24 bits, so the
//!   computed distances are good to a few `1e-7 * scale`; the band is 20x that);
//! - normals are unit length (`| |n| - 1 | <= 1e-4`), depths `>= 0`, ray and
//!   sweep parameters in range, hit points on the shape within `tol`.

use crate::bytes::Bytes;
use crate::oracle::{self, first_crossing, p64, v64, Convex, V};
use proxima_narrowphase::internal::{OBB_EDGE_AXIS_MIN_SINE, OBB_EDGE_AXIS_REL_TOL};
use proxima_narrowphase::kernels::*;
use proxima_narrowphase::*;

/// Largest magnitude for which answers are compared with the oracle.
const CHECK_LIMIT: f64 = 1e6;

/// The expected outcome of a validating constructor.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Ok,
    NonFinite,
    Inverted(usize),
    NegRadius,
    NegExtent,
    ZeroDir,
    NegMaxToi,
    BadRotation,
    TooLarge,
}

fn outcome<T>(r: &Result<T, ShapeError>) -> Want {
    match r {
        Ok(_) => Want::Ok,
        Err(ShapeError::NonFinite(_)) => Want::NonFinite,
        Err(ShapeError::InvertedBounds { axis }) => Want::Inverted(*axis),
        Err(ShapeError::NegativeRadius) => Want::NegRadius,
        Err(ShapeError::NegativeExtent) => Want::NegExtent,
        Err(ShapeError::ZeroDirection) => Want::ZeroDir,
        Err(ShapeError::NegativeMaxToi) => Want::NegMaxToi,
        Err(ShapeError::InvalidRotation) => Want::BadRotation,
        Err(ShapeError::TooLarge(_)) => Want::TooLarge,
        Err(e) => panic!("a ShapeError this check does not know: {e:?}"),
    }
}

fn finite3(v: &Vector) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Some component beyond `MAX_COORDINATE` (1e18), the shapes' documented bound.
fn big(vs: &[&Vector]) -> bool {
    vs.iter().any(|v| v.iter().any(|x| x.abs() > 1e18))
}

/// Everything the checks of one case need to know about its scale.
#[derive(Clone, Copy, Debug)]
struct Scale {
    /// Largest magnitude seen (inputs only).
    max: f64,
    /// Every input finite and at most `CHECK_LIMIT`.
    checked: bool,
}

impl Scale {
    fn new() -> Self {
        Self { max: 0.0, checked: true }
    }
    fn add(&mut self, x: f32) {
        let x = x as f64;
        if !x.is_finite() || x.abs() > CHECK_LIMIT {
            self.checked = false;
        }
        self.max = self.max.max(x.abs());
    }
    fn add_v(&mut self, v: &Vector) {
        v.iter().for_each(|x| self.add(*x));
    }
    /// The oracle band, `1e-5 * (1 + scale)`.
    fn tol(&self) -> f64 {
        1e-5 * (1.0 + self.max)
    }
}

/// Decodes shapes, checking each constructor's verdict on the way.
struct Gen<'a, 'b> {
    b: &'b mut Bytes<'a>,
    wild: bool,
    scale: Scale,
    /// The case's unit: ordinary values are multiplied by it (1e-2 to 1e4),
    /// so the same geometry is also checked far from unit scale.
    unit: f32,
}

impl Gen<'_, '_> {
    fn f(&mut self) -> f32 {
        let x = self.b.f32_or_wild(self.wild) * self.unit;
        self.scale.add(x);
        x
    }
    fn size(&mut self) -> f32 {
        let x = if self.wild && self.b.chance(64) { self.b.any_f32() } else { self.b.size() * self.unit };
        self.scale.add(x);
        x
    }
    fn point(&mut self) -> Point {
        Point::new(self.f(), self.f(), self.f())
    }
    fn vector(&mut self) -> Vector {
        let v = Vector::new(self.f(), self.f(), self.f());
        if self.wild && self.b.chance(48) {
            // A whole vector at another scale, 1e-30 to 1e30: tiny and huge
            // directions and motions whose squared length under/overflows.
            let v = v * 10f32.powi(self.b.byte() as i32 % 61 - 30);
            self.scale.add_v(&v);
            return v;
        }
        v
    }
    fn sizes(&mut self) -> Vector {
        Vector::new(self.size(), self.size(), self.size())
    }

    fn rotation(&mut self) -> Rotation {
        if self.wild {
            let q = nalgebra::Quaternion::new(self.b.any_f32(), self.b.any_f32(), self.b.any_f32(), self.b.any_f32());
            if self.b.chance(128) {
                return Rotation::new_unchecked(q);
            }
            return Rotation::try_new(q, 0.0).unwrap_or_else(|| Rotation::new_unchecked(q));
        }
        if self.b.chance(64) {
            return Rotation::identity();
        }
        let q = nalgebra::Quaternion::new(self.b.ordinary(), self.b.ordinary(), self.b.ordinary(), self.b.ordinary());
        Rotation::try_new(q, 1e-3).unwrap_or_else(Rotation::identity)
    }

    fn sphere(&mut self) -> Option<Sphere> {
        let (c, r) = (self.point(), self.size());
        let want = if !finite3(&c.coords) || !r.is_finite() {
            Want::NonFinite
        } else if r < 0.0 {
            Want::NegRadius
        } else if big(&[&c.coords, &Vector::repeat(r)]) {
            Want::TooLarge
        } else {
            Want::Ok
        };
        let s = Sphere::try_new(c, r);
        assert_eq!(outcome(&s), want, "Sphere::try_new({c:?}, {r:?})");
        let s = s.ok()?;
        assert_valid_box(&s.aabb(), "Sphere::aabb", &s);
        Some(s)
    }

    fn aabb(&mut self) -> Option<Aabb> {
        // Half the time min/max, else centre/half-extents or min/size.
        match self.b.byte() % 4 {
            0 | 1 => {
                let (min, max) = (self.point(), self.point());
                let want = if !finite3(&min.coords) || !finite3(&max.coords) {
                    Want::NonFinite
                } else {
                    (0..3).find(|&i| min[i] > max[i]).map_or(Want::Ok, Want::Inverted)
                };
                let a = Aabb::try_new(min, max);
                assert_eq!(outcome(&a), want, "Aabb::try_new({min:?}, {max:?})");
                // A box given in the wrong order is still a box: sort it.
                a.ok().or_else(|| Aabb::try_new(min.inf(&max), min.sup(&max)).ok())
            }
            2 => {
                let (c, h) = (self.point(), self.sizes());
                let want = derived_box_want(&c.coords, &h, c - h, c + h);
                let a = Aabb::try_from_center(c, h);
                assert_eq!(outcome(&a), want, "Aabb::try_from_center({c:?}, {h:?})");
                a.ok()
            }
            _ => {
                let (min, s) = (self.point(), self.sizes());
                let want = derived_box_want(&min.coords, &s, min, min + s);
                let a = Aabb::try_from_min_size(min, s);
                assert_eq!(outcome(&a), want, "Aabb::try_from_min_size({min:?}, {s:?})");
                a.ok()
            }
        }
    }

    fn obb(&mut self) -> Option<Obb> {
        let (c, rot, h) = (self.point(), self.rotation(), self.sizes());
        let q = rot.as_ref().coords;
        let want = if !finite3(&c.coords) || !finite3(&h) {
            Want::NonFinite
        } else if !q.iter().all(|x| x.is_finite()) || (q.norm_squared() - 1.0).abs() > 1e-3 {
            Want::BadRotation
        } else if h.iter().any(|&x| x < 0.0) {
            Want::NegExtent
        } else if big(&[&c.coords, &h]) {
            Want::TooLarge
        } else {
            Want::Ok
        };
        let o = if self.b.chance(64) {
            Obb::try_from_isometry(&Isometry::from_parts(c.coords.into(), rot), h)
        } else {
            Obb::try_new(c, rot, h)
        };
        assert_eq!(outcome(&o), want, "Obb::try_new({c:?}, {q:?}, {h:?})");
        let o = o.ok()?;
        assert_valid_box(&o.aabb(), "Obb::aabb", &o);
        Some(o)
    }

    fn capsule(&mut self) -> Option<Capsule> {
        let (a, b, r) = (self.point(), self.point(), self.size());
        let want = if !finite3(&a.coords) || !finite3(&b.coords) || !r.is_finite() {
            Want::NonFinite
        } else if r < 0.0 {
            Want::NegRadius
        } else if big(&[&a.coords, &b.coords, &Vector::repeat(r)]) {
            Want::TooLarge
        } else {
            Want::Ok
        };
        let c = Capsule::try_new(a, b, r);
        assert_eq!(outcome(&c), want, "Capsule::try_new({a:?}, {b:?}, {r:?})");
        let c = c.ok()?;
        assert_valid_box(&c.aabb(), "Capsule::aabb", &c);
        Some(c)
    }

    fn triangle(&mut self) -> Option<Triangle> {
        let (mut a, mut b, mut c) = (self.point(), self.point(), self.point());
        // Degenerate triangles, which meshes contain: two equal vertices, or
        // the third on the line of the first two.
        match self.b.byte() % 16 {
            0 => b = a,
            1 => c = b,
            2 => c = a,
            3 => c = a + (b - a) * self.b.ordinary(),
            4 => a = b + (c - b) * self.b.ordinary(),
            _ => {}
        }
        let want = if ![a, b, c].iter().all(|p| finite3(&p.coords)) {
            Want::NonFinite
        } else if big(&[&a.coords, &b.coords, &c.coords]) {
            Want::TooLarge
        } else {
            Want::Ok
        };
        let t = Triangle::try_new(a, b, c);
        assert_eq!(outcome(&t), want, "Triangle::try_new({a:?}, {b:?}, {c:?})");
        let t = t.ok()?;
        assert_valid_box(&t.aabb(), "Triangle::aabb", &t);
        Some(t)
    }

    fn plane(&mut self) -> Option<Plane> {
        let (p, n) = (self.point(), self.vector());
        let want = if !finite3(&p.coords) || !finite3(&n) {
            Want::NonFinite
        } else if n == Vector::zeros() {
            Want::ZeroDir
        } else {
            // The offset n.p / |n| overflows only beyond f32::MAX; within a
            // relative 1e-6 of it, rounding decides (either verdict is right).
            let off = v64(&n).normalize().dot(&p64(&p)).abs();
            let max = f32::MAX as f64;
            if off > max * (1.0 + 1e-6) {
                Want::NonFinite
            } else if off < max * (1.0 - 1e-6) {
                Want::Ok
            } else {
                outcome(&Plane::try_new(p, n))
            }
        };
        let pl = Plane::try_new(p, n);
        assert_eq!(outcome(&pl), want, "Plane::try_new({p:?}, {n:?})");
        let pl = pl.ok()?;
        let n64 = v64(&n).normalize();
        let got = v64(pl.normal());
        assert!((got - n64).norm() <= 1e-5, "Plane::try_new({p:?}, {n:?}): normal {got:?}, expected {n64:?}");
        Some(pl)
    }

    fn ray(&mut self) -> Option<Ray> {
        let (o, d) = (self.point(), self.vector());
        let max_toi = if self.wild && self.b.chance(64) {
            self.b.any_f32()
        } else if self.b.chance(32) {
            f32::INFINITY
        } else {
            self.b.ordinary().abs() * 4.0
        };
        if max_toi.is_finite() {
            self.scale.add(max_toi);
        }
        let want = if !finite3(&o.coords) || !finite3(&d) {
            Want::NonFinite
        } else if d.amax() < f32::MIN_POSITIVE {
            Want::ZeroDir // zero or subnormal: cannot be inverted (B30)
        } else if max_toi.is_nan() {
            Want::NonFinite
        } else if max_toi < 0.0 {
            Want::NegMaxToi
        } else {
            Want::Ok
        };
        let r = Ray::try_new(o, d, max_toi);
        assert_eq!(outcome(&r), want, "Ray::try_new({o:?}, {d:?}, {max_toi:?})");
        r.ok()
    }
}

/// Verdict for a box built from two finite-checked vectors and derived corners.
fn derived_box_want(a: &Vector, b: &Vector, min: Point, max: Point) -> Want {
    if !finite3(a) || !finite3(b) {
        Want::NonFinite
    } else if b.iter().any(|&x| x < 0.0) {
        Want::NegExtent
    } else if !finite3(&min.coords) || !finite3(&max.coords) {
        Want::NonFinite // the corners overflow
    } else {
        (0..3).find(|&i| min[i] > max[i]).map_or(Want::Ok, Want::Inverted)
    }
}

/// A shape's bounding box must itself be a valid `Aabb` (finite, ordered).
fn assert_valid_box(b: &Aabb, what: &str, shape: &dyn core::fmt::Debug) {
    assert!(b.is_valid(), "{what} of {shape:?} is not a valid box: {b:?}");
}

fn assert_unit(n: &UnitVector, what: &str) {
    let len = n.into_inner().norm();
    assert!((len - 1.0).abs() <= 1e-4, "{what}: normal {n:?} has length {len}");
}

/// Checks one contact: unit normal, `depth >= 0`, `point_a - point_b ≈ depth * normal`,
/// and each witness point on (or in) its own shape.
fn check_contact_on(c: &Contact, a: &impl Convex, b: &impl Convex, tol: f64, what: &str) {
    check_contact(c, tol, what);
    let (da, db) = (a.dist(&p64(&c.point_a)), b.dist(&p64(&c.point_b)));
    assert!(da <= tol && db <= tol, "{what}: witness points {c:?} off their shapes by {da}, {db}");
}

/// Checks one contact: unit normal, `depth >= 0`, `point_a - point_b ≈ depth * normal`.
fn check_contact(c: &Contact, tol: f64, what: &str) {
    assert_unit(&c.normal, what);
    assert!(c.depth >= 0.0 && c.depth.is_finite(), "{what}: depth {}", c.depth);
    let gap = p64(&c.point_a) - p64(&c.point_b) - v64(&c.normal) * c.depth as f64;
    assert!(gap.norm() <= tol, "{what}: point_a - point_b - depth n = {gap:?} (tol {tol})");
}

/// Overlap verdict against a signed oracle gap (`> 0` apart): must agree
/// outside the band `|gap| <= tol`.
fn check_verdict(got: bool, gap: f64, tol: f64, what: &str) {
    if gap > tol {
        assert!(!got, "{what}: reported overlapping, oracle gap {gap} > {tol}");
    } else if gap < -tol {
        assert!(got, "{what}: reported apart, oracle overlap {} > {tol}", -gap);
    }
}

/// Every answer, at any scale: a sweep hit has `toi` in `[0, 1]` (never
/// NaN) and `Penetrating` exactly at `toi = 0`.
fn check_sweep_wellformed(hit: &Option<SweepHit>, motion: &Vector, what: &str) {
    let Some(h) = hit else { return };
    assert!((0.0..=1.0).contains(&h.toi), "{what}: toi {} outside [0, 1] (motion {motion:?})", h.toi);
    assert_eq!(h.status == SweepStatus::Penetrating, h.toi == 0.0, "{what}: status {:?} at toi {}", h.status, h.toi);
}

/// Every answer, at any scale: a ray hit has `toi` in `[0, max_toi]` (never NaN).
fn check_ray_wellformed(hit: &Option<RayHit>, ray: &Ray, what: &str) {
    if let Some(h) = hit {
        assert!(
            h.toi >= 0.0 && h.toi <= ray.max_toi(),
            "{what}: toi {} outside [0, {}] for {ray:?}",
            h.toi,
            ray.max_toi()
        );
    }
}

/// Checks a sphere sweep against the oracle: `g(t) = dist(c + t m) - r`.
fn check_sweep(hit: Option<SweepHit>, s: &Sphere, m: &Vector, target: &impl Convex, tol: f64, what: &str) {
    let (c, mv, r) = (p64(s.center()), v64(m), s.radius() as f64);
    let g = |t: f64| target.dist(&(c + mv * t)) - r;
    let deep = first_crossing(&g, 1.0, -tol);
    let Some(h) = hit else {
        assert!(deep.is_none(), "{what}: missed, but the oracle penetrates by {tol} at toi {deep:?}");
        return;
    };
    assert!((0.0..=1.0).contains(&h.toi), "{what}: toi {} outside [0, 1]", h.toi);
    assert_eq!(h.status == SweepStatus::Penetrating, h.toi == 0.0, "{what}: status {:?} at toi {}", h.status, h.toi);
    assert_unit(&h.normal, what);
    let t = h.toi as f64;
    assert!(g(t) <= tol, "{what}: at toi {t} the oracle is {} apart", g(t));
    if let Some(td) = deep {
        // A hit after the first time the shapes overlap by `tol` must still
        // be within the band there (a grazing motion reaches `-tol` slowly,
        // so the toi itself is ill-conditioned; the overlap is not).
        assert!(
            t <= td + 1e-6 || g(t) >= -2.0 * tol,
            "{what}: toi {t} overlaps by {} (> {tol}); deep contact at {td}",
            -g(t)
        );
    }
    if g(0.0) > tol {
        assert_eq!(h.status, SweepStatus::Hit, "{what}: apart at the start but Penetrating");
    }
    assert!(target.dist(&p64(&h.point)) <= tol, "{what}: point {:?} is off the target", h.point);
    if h.status == SweepStatus::Hit {
        let at = c + mv * t;
        let d = (at - p64(&h.point)).norm();
        assert!((d - r).abs() <= tol, "{what}: centre at toi is {d} from the point, radius {r}");
    }
}

/// The parameter bound of a ray: `max_toi`, or far past the shape if unbounded.
fn ray_end(ray: &Ray, extent: f64) -> f64 {
    let reach = (p64(ray.origin()).amax() + extent + 1.0) * 4.0 / v64(ray.dir()).norm();
    (ray.max_toi() as f64).min(reach)
}

/// Checks a ray cast on a solid against its signed distance `g(t) = sd(o + t d)`.
fn check_ray_solid(hit: Option<RayHit>, ray: &Ray, target: &impl Convex, tol: f64, what: &str) {
    let (o, d) = (p64(ray.origin()), v64(ray.dir()));
    let g = |t: f64| target.dist(&(o + d * t));
    let end = ray_end(ray, target.extent());
    // The points of the ray reach |o| + end |d|: widen the band with them.
    let tol = tol + 1e-5 * end * d.norm();
    let deep = first_crossing(&g, end, -tol);
    let Some(h) = hit else {
        assert!(deep.is_none(), "{what}: missed, but the ray is inside by {tol} at toi {deep:?}");
        return;
    };
    assert!(h.toi >= 0.0 && h.toi <= ray.max_toi(), "{what}: toi {} outside [0, {}]", h.toi, ray.max_toi());
    assert_unit(&h.normal, what);
    let t = h.toi as f64;
    // Distance tolerance along the ray, in parameter units.
    let slack = tol / d.norm();
    assert!(g(t).abs() <= tol || (t == 0.0 && g(0.0) <= tol), "{what}: hit at toi {t} is {} from the surface", g(t));
    if let Some(td) = deep {
        assert!(t <= td + slack, "{what}: toi {t} after the ray is inside by {tol} at {td}");
    }
    if g(0.0) > tol {
        assert!(t > 0.0, "{what}: origin outside by {} but toi 0", g(0.0));
        assert!(
            v64(&h.normal).dot(&d) <= tol * d.norm(),
            "{what}: normal {:?} faces away from {ray:?} (hit {h:?})",
            h.normal
        );
    }
    if g(0.0) < -tol {
        assert_eq!(t, 0.0, "{what}: origin inside by {} but toi {t}", -g(0.0));
        let back = -d.normalize();
        assert!((v64(&h.normal) - back).norm() <= 1e-4, "{what}: inside start, normal {:?} != -dir", h.normal);
    }
}

/// Checks a ray cast on a surface (triangle, plane) whose plane is `n . x = k`:
/// a ray crossing the plane at an angle (`|n . d| >= 1e-3 |n| |d|`), at a
/// parameter inside `[0, max_toi]` by the band, at a point inside the surface
/// by the band (`inside(q) < -tol`), must hit there; a hit must lie on the surface.
fn check_ray_surface(
    hit: Option<RayHit>,
    ray: &Ray,
    target: &impl Convex,
    plane: (V, f64),
    conditioning: f64,
    inner: &dyn Fn(&V) -> f64,
    tol: f64,
    what: &str,
) {
    let (o, d) = (p64(ray.origin()), v64(ray.dir()));
    let (n, k) = plane;
    let denom = n.dot(&d);
    let tol = tol + 1e-5 * ray_end(ray, target.extent()) * d.norm();
    let slack = tol / d.norm();
    if let Some(h) = hit {
        assert!(h.toi >= 0.0 && h.toi <= ray.max_toi(), "{what}: toi {} outside [0, {}]", h.toi, ray.max_toi());
        assert_unit(&h.normal, what);
        let t = h.toi as f64;
        let g = target.dist(&(o + d * t));
        assert!(g <= tol, "{what}: hit at toi {t} is {g} off the surface");
        // The f32 face normal `e1 x e2` of a sliver cancels: its direction
        // error is ~`eps / sin` (sin of the angle at `a`, `|n| / (|e1| |e2|)`,
        // 1 for a plane), so it is compared only where that is below 1e-3.
        if n.norm() > 0.0 && conditioning >= 1e-3 {
            let nu = n.normalize();
            let nd = v64(&h.normal).dot(&nu).abs();
            assert!((nd - 1.0).abs() <= 1e-3, "{what}: normal {:?} is not the surface normal {nu:?}", h.normal);
        }
        assert!(
            v64(&h.normal).dot(&d) <= tol * d.norm(),
            "{what}: normal {:?} faces away from {ray:?} (hit {h:?})",
            h.normal
        );
    }
    if n.norm() == 0.0 || denom.abs() < 1e-3 * n.norm() * d.norm() {
        return;
    }
    let t = (k - n.dot(&o)) / denom;
    let q = o + d * t;
    // A distance error `tol` across the plane moves the crossing along the
    // ray by `tol |n| / |n . d|` (the angle makes toi ill-conditioned).
    let slack = slack.max(tol * n.norm() / denom.abs());
    // A toi is an f32: a ray reaches `min(max_toi, f32::MAX)` (a crossing
    // further away, in units of a tiny direction, is out of its reach).
    let reach = (ray.max_toi() as f64).min(f32::MAX as f64);
    if t > slack && t < reach - slack && inner(&q) < -tol {
        let Some(h) = hit else { panic!("{what}: missed a crossing at toi {t}") };
        assert!((h.toi as f64 - t).abs() <= slack, "{what}: toi {} but the crossing is at {t}", h.toi);
    }
}

/// `-(distance to the nearest edge)` for a point of the triangle's plane
/// inside it, `+distance` outside: negative means inside by that margin.
fn triangle_inner(t: &Triangle, q: &V) -> f64 {
    let (a, b, c) = (p64(t.a()), p64(t.b()), p64(t.c()));
    let n = (b - a).cross(&(c - a));
    let edges = oracle::dist_point_segment(q, &a, &b)
        .min(oracle::dist_point_segment(q, &b, &c))
        .min(oracle::dist_point_segment(q, &c, &a));
    let inside = [(a, b), (b, c), (c, a)].iter().all(|(u, v)| (v - u).cross(&(q - u)).dot(&n) >= 0.0);
    if inside && n.norm() > 0.0 {
        -edges
    } else {
        edges
    }
}

/// Runs every property on the cases decoded from `data` (up to 16 cases).
pub fn check(data: &[u8]) {
    let mut b = Bytes::new(data);
    for _ in 0..16 {
        if b.is_empty() {
            break;
        }
        one_case(&mut b);
    }
}

fn one_case(b: &mut Bytes) {
    let wild = b.chance(48);
    let op = b.byte() % 13;
    let unit = match b.byte() % 16 {
        0 => 1e-2,
        1 => 10.0,
        2 => 100.0,
        3 => 1e4,
        _ => 1.0,
    };
    let mut g = Gen { b, wild, scale: Scale::new(), unit };
    match op {
        0 => sphere_sphere(&mut g),
        1 => aabb_aabb(&mut g),
        2 => sphere_aabb(&mut g),
        3 => sphere_obb(&mut g),
        4 => sphere_capsule(&mut g),
        5 => capsule_capsule(&mut g),
        6 => capsule_box(&mut g),
        7 => obb_obb(&mut g),
        8 => sphere_triangle(&mut g),
        9 => aabb_triangle(&mut g),
        10 => rays(&mut g),
        11 => sphere_plane(&mut g),
        _ => wide_kernels(&mut g),
    }
}

fn sphere_sphere(g: &mut Gen) {
    let (Some(a), Some(b)) = (g.sphere(), g.sphere()) else { return };
    let m = g.vector();
    let mb = g.vector();
    let (ab, ba) = (intersects_sphere_sphere(&a, &b), intersects_sphere_sphere(&b, &a));
    assert_eq!(ab, ba, "intersects_sphere_sphere not symmetric: {a:?} {b:?}");
    let (cab, cba) = (contact_sphere_sphere(&a, &b), contact_sphere_sphere(&b, &a));
    let hit = cast_sphere_sphere(&a, &m, &b);
    let moving = cast_sphere_moving_sphere(&a, &m, &b, &mb);
    check_sweep_wellformed(&hit, &m, "cast_sphere_sphere");
    check_sweep_wellformed(&moving, &(m - mb), "cast_sphere_moving_sphere");
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let dist = (p64(a.center()) - p64(b.center())).norm();
    let gap = dist - (a.radius() as f64 + b.radius() as f64);
    check_verdict(ab, gap, tol, "intersects_sphere_sphere");
    check_verdict(cab.is_some(), gap, tol, "contact_sphere_sphere");
    assert_eq!(cab.is_some(), cba.is_some(), "contact_sphere_sphere not symmetric: {a:?} {b:?}");
    if let (Some(x), Some(y)) = (cab, cba) {
        check_contact_on(&x, &a, &b, tol, "contact_sphere_sphere");
        check_contact_on(&y, &b, &a, tol, "contact_sphere_sphere (b, a)");
        assert!((x.depth as f64 + gap).abs() <= tol, "contact_sphere_sphere: depth {} vs oracle {}", x.depth, -gap);
        assert!((x.depth - y.depth).abs() as f64 <= tol, "contact depth not symmetric: {x:?} {y:?}");
        // Directions only when the centres are 1e-3 * scale apart (see capsule_capsule).
        if dist > 100.0 * tol {
            let n = (p64(b.center()) - p64(a.center())) / dist;
            assert!((v64(&x.normal) - n).norm() <= 1e-3, "contact_sphere_sphere: normal {:?} vs {n:?}", x.normal);
            assert!((v64(&x.normal) + v64(&y.normal)).norm() <= 1e-3, "contact normals do not flip: {x:?} {y:?}");
        }
    }
    check_sweep(hit, &a, &m, &b, tol, &format!("cast_sphere_sphere({a:?}, {m:?}, {b:?})"));
    // Two moving spheres are one moving by the relative motion.
    let rel = m - mb;
    if finite3(&rel) {
        g.scale.add_v(&rel);
        // Its point is found in b's frame, then moved with b to time toi.
        let moving = moving.map(|h| SweepHit { point: h.point - mb * h.toi, ..h });
        check_sweep(moving, &a, &rel, &b, g.scale.tol(), "cast_sphere_moving_sphere");
    }
}

fn aabb_aabb(g: &mut Gen) {
    let (Some(a), Some(b)) = (g.aabb(), g.aabb()) else { return };
    let (ab, ba) = (intersects_aabb_aabb(&a, &b), intersects_aabb_aabb(&b, &a));
    assert_eq!(ab, ba, "intersects_aabb_aabb not symmetric: {a:?} {b:?}");
    // Exact: comparisons of the stored corners, no rounding anywhere.
    let exact = (0..3).all(|i| a.min()[i] <= b.max()[i] && b.min()[i] <= a.max()[i]);
    assert_eq!(ab, exact, "intersects_aabb_aabb({a:?}, {b:?})");
    let m = a.merged(&b);
    assert!(m.is_valid() && m.contains_aabb(&a) && m.contains_aabb(&b), "merged {m:?} of {a:?} {b:?}");
    let margin = g.size();
    let l = a.loosened(margin);
    assert!(l.is_valid() && l.contains_aabb(&a), "loosened({margin}) of {a:?} = {l:?}");
    assert_eq!(a.contains_aabb(&b), a.contains_point(b.min()) && a.contains_point(b.max()));
    let p = g.point();
    if finite3(&p.coords) {
        let q = closest_point_aabb(&p, &a);
        assert!(a.contains_point(&q), "closest_point_aabb({p:?}, {a:?}) = {q:?} is outside");
        let (d, d2) = (distance_point_aabb(&p, &a), distance_squared_point_aabb(&p, &a));
        if g.scale.checked {
            let tol = g.scale.tol();
            let want = oracle::dist_point_box(&p64(&p), &p64(a.min()), &p64(a.max()));
            assert!((d as f64 - want).abs() <= tol, "distance_point_aabb({p:?}, {a:?}) = {d}, oracle {want}");
            assert!(
                (d2 as f64 - want * want).abs() <= tol * (1.0 + want),
                "distance_squared_point_aabb = {d2}, oracle {want}^2"
            );
        }
    }
}

fn sphere_aabb(g: &mut Gen) {
    let (Some(s), Some(a)) = (g.sphere(), g.aabb()) else { return };
    let m = g.vector();
    let i = intersects_sphere_aabb(&s, &a);
    let c = contact_sphere_aabb(&s, &a);
    let hit = cast_sphere_aabb(&s, &m, &a);
    check_sweep_wellformed(&hit, &m, "cast_sphere_aabb");
    let i_obb = intersects_sphere_obb(&s, &Obb::from_aabb(&a));
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let gap = a.dist(&p64(s.center())) - s.radius() as f64;
    check_verdict(i, gap, tol, "intersects_sphere_aabb");
    check_verdict(i_obb, gap, tol, "intersects_sphere_obb(from_aabb)");
    check_verdict(c.is_some(), gap, tol, "contact_sphere_aabb");
    if let Some(c) = c {
        check_contact_on(&c, &s, &a, tol, "contact_sphere_aabb");
        assert!((c.depth as f64 + gap).abs() <= tol, "contact_sphere_aabb: depth {} vs oracle {}", c.depth, -gap);
    }
    check_sweep(hit, &s, &m, &a, tol, "cast_sphere_aabb");
}

fn sphere_obb(g: &mut Gen) {
    let (Some(s), Some(o)) = (g.sphere(), g.obb()) else { return };
    let m = g.vector();
    let p = g.point();
    let i = intersects_sphere_obb(&s, &o);
    let c = contact_sphere_obb(&s, &o);
    let hit = cast_sphere_obb(&s, &m, &o);
    check_sweep_wellformed(&hit, &m, "cast_sphere_obb");
    let (q, d) = (closest_point_obb(&p, &o), distance_point_obb(&p, &o));
    let (qs, ds) = (closest_point_sphere(&p, &s), distance_point_sphere(&p, &s));
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let gap = o.dist(&p64(s.center())) - s.radius() as f64;
    check_verdict(i, gap, tol, "intersects_sphere_obb");
    check_verdict(c.is_some(), gap, tol, "contact_sphere_obb");
    if let Some(c) = c {
        check_contact_on(&c, &s, &o, tol, "contact_sphere_obb");
        assert!((c.depth as f64 + gap).abs() <= tol, "contact_sphere_obb: depth {} vs oracle {}", c.depth, -gap);
    }
    check_sweep(hit, &s, &m, &o, tol, "cast_sphere_obb");
    let want = o.dist(&p64(&p)).max(0.0);
    assert!((d as f64 - want).abs() <= tol, "distance_point_obb({p:?}) = {d}, oracle {want}");
    assert!(o.dist(&p64(&q)) <= tol, "closest_point_obb({p:?}) = {q:?} is outside");
    assert!(
        ((p64(&q) - p64(&p)).norm() - want).abs() <= tol,
        "closest_point_obb({p:?}, {o:?}) = {q:?} not closest (distance {want}, tol {tol})"
    );
    let want = s.dist(&p64(&p)).max(0.0);
    assert!((ds as f64 - want).abs() <= tol, "distance_point_sphere({p:?}) = {ds}, oracle {want}");
    assert!(((p64(&qs) - p64(&p)).norm() - want).abs() <= tol, "closest_point_sphere({p:?}) = {qs:?}");
}

fn sphere_capsule(g: &mut Gen) {
    let (Some(s), Some(c)) = (g.sphere(), g.capsule()) else { return };
    let m = g.vector();
    let i = intersects_sphere_capsule(&s, &c);
    let ct = contact_sphere_capsule(&s, &c);
    let hit = cast_sphere_capsule(&s, &m, &c);
    check_sweep_wellformed(&hit, &m, &format!("cast_sphere_capsule({s:?}, {m:?}, {c:?})"));
    let p = g.point();
    let q = closest_point_segment(&p, c.a(), c.b());
    let d = distance_point_segment(&p, c.a(), c.b());
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let gap = c.dist(&p64(s.center())) - s.radius() as f64;
    check_verdict(i, gap, tol, "intersects_sphere_capsule");
    check_verdict(ct.is_some(), gap, tol, "contact_sphere_capsule");
    if let Some(ct) = ct {
        check_contact_on(&ct, &s, &c, tol, "contact_sphere_capsule");
        assert!((ct.depth as f64 + gap).abs() <= tol, "contact_sphere_capsule: depth {} vs {}", ct.depth, -gap);
    }
    check_sweep(hit, &s, &m, &c, tol, "cast_sphere_capsule");
    let want = oracle::dist_point_segment(&p64(&p), &p64(c.a()), &p64(c.b()));
    assert!((d as f64 - want).abs() <= tol, "distance_point_segment = {d}, oracle {want}");
    assert!(((p64(&q) - p64(&p)).norm() - want).abs() <= tol, "closest_point_segment = {q:?}, oracle {want}");
}

fn capsule_capsule(g: &mut Gen) {
    let (Some(a), Some(b)) = (g.capsule(), g.capsule()) else { return };
    let (ab, ba) = (intersects_capsule_capsule(&a, &b), intersects_capsule_capsule(&b, &a));
    let (cab, cba) = (contact_capsule_capsule(&a, &b), contact_capsule_capsule(&b, &a));
    let ClosestPoints { point_a: s, point_b: t } = closest_points_segment_segment(a.a(), a.b(), b.a(), b.b());
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let core = Capsule::new(*b.a(), *b.b(), 0.0);
    let seg = oracle::dist_segment_convex(&p64(a.a()), &p64(a.b()), &core);
    let gap = seg - (a.radius() as f64 + b.radius() as f64);
    check_verdict(ab, gap, tol, "intersects_capsule_capsule");
    check_verdict(ba, gap, tol, "intersects_capsule_capsule (b, a)");
    check_verdict(cab.is_some(), gap, tol, "contact_capsule_capsule");
    check_verdict(cba.is_some(), gap, tol, "contact_capsule_capsule (b, a)");
    if let (Some(x), Some(y)) = (cab, cba) {
        check_contact_on(&x, &a, &b, tol, "contact_capsule_capsule");
        check_contact_on(&y, &b, &a, tol, "contact_capsule_capsule (b, a)");
        assert!(
            (x.depth as f64 + gap).abs() <= tol,
            "contact_capsule_capsule({a:?}, {b:?}): depth {} vs {}",
            x.depth,
            -gap
        );
        assert!((x.depth - y.depth).abs() as f64 <= tol, "contact depth not symmetric: {x:?} {y:?}");
        // The normal is the direction between the closest points, whose
        // rounding (~1e-7 * scale) turns it by ~1e-7 * scale / distance: compare
        // directions only when the segments are 1e-3 * scale apart. Nearly
        // parallel segments have a closest pair that slides along them, and
        // the two argument orders clamp in different order (Ericson 5.1.9),
        // so the directions may differ by about the angle between the
        // segments: 1e-2 is allowed.
        if seg > 100.0 * tol {
            assert!((v64(&x.normal) + v64(&y.normal)).norm() <= 1e-2, "contact normals do not flip: {x:?} {y:?}");
        }
    }
    let d = (p64(&s) - p64(&t)).norm();
    assert!((d - seg).abs() <= tol, "closest_points_segment_segment: {d}, oracle {seg}");
    let on_a = oracle::dist_point_segment(&p64(&s), &p64(a.a()), &p64(a.b()));
    let on_b = oracle::dist_point_segment(&p64(&t), &p64(b.a()), &p64(b.b()));
    assert!(on_a <= tol && on_b <= tol, "closest_points_segment_segment: points off their segments");
}

fn capsule_box(g: &mut Gen) {
    let (Some(c), Some(o), Some(a)) = (g.capsule(), g.obb(), g.aabb()) else { return };
    let io = intersects_capsule_obb(&c, &o);
    let ia = intersects_capsule_aabb(&c, &a);
    let ia_obb = intersects_capsule_obb(&c, &Obb::from_aabb(&a));
    let ct = contact_capsule_obb(&c, &o);
    let ClosestPoints { point_a: so, point_b: xo } = closest_points_segment_obb(c.a(), c.b(), &o);
    let ClosestPoints { point_a: sa, point_b: xa } = closest_points_segment_aabb(c.a(), c.b(), &a);
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let (pa, pb) = (p64(c.a()), p64(c.b()));
    let seg_o = oracle::dist_segment_convex(&pa, &pb, &o);
    let seg_a = oracle::dist_segment_convex(&pa, &pb, &a);
    let r = c.radius() as f64;
    check_verdict(io, seg_o - r, tol, &format!("intersects_capsule_obb({c:?}, {o:?})"));
    check_verdict(ia, seg_a - r, tol, &format!("intersects_capsule_aabb({c:?}, {a:?})"));
    check_verdict(ia_obb, seg_a - r, tol, "intersects_capsule_obb(from_aabb)");
    check_verdict(ct.is_some(), seg_o - r, tol, "contact_capsule_obb");
    if let Some(ct) = ct {
        // Documented: `point_b = point_a - depth * normal`, with point_a the
        // capsule's deepest point; point_b need not lie on the box (unlike the
        // general `Contact` convention), so only point_a is checked.
        check_contact(&ct, tol, &format!("contact_capsule_obb({c:?}, {o:?})"));
        let da = c.dist(&p64(&ct.point_a));
        assert!(da <= tol, "contact_capsule_obb({c:?}, {o:?}): point_a {:?} off the capsule by {da}", ct.point_a);
        // Apart cores (a gap beyond the tolerance) take their closest pair,
        // in f64 within 1e-4 of the shapes' size: the depth is `r - gap`.
        if seg_o > tol {
            assert!(
                (ct.depth as f64 - (r - seg_o)).abs() <= tol,
                "contact_capsule_obb({c:?}, {o:?}): depth {} vs {}",
                ct.depth,
                r - seg_o
            );
        }
    }
    for (s, x, d, name, bx) in [
        (so, xo, seg_o.max(0.0), "closest_points_segment_obb", &o as &dyn Convex),
        (sa, xa, seg_a.max(0.0), "closest_points_segment_aabb", &Obb::from_aabb(&a) as &dyn Convex),
    ] {
        let got = (p64(&s) - p64(&x)).norm();
        assert!((got - d).abs() <= tol, "{name}: distance {got}, oracle {d}");
        assert!(oracle::dist_point_segment(&p64(&s), &pa, &pb) <= tol, "{name}: {s:?} is off the segment");
        assert!(bx.dist(&p64(&x)) <= tol, "{name}: {x:?} is outside the box");
    }
}

fn obb_obb(g: &mut Gen) {
    let (Some(a), Some(b), Some(c)) = (g.obb(), g.obb(), g.aabb()) else { return };
    let (ab, ba) = (intersects_obb_obb(&a, &b), intersects_obb_obb(&b, &a));
    let (cab, cba) = (contact_obb_obb(&a, &b), contact_obb_obb(&b, &a));
    let manifold = contact_manifold_obb_obb(&a, &b, 0.0);
    let ca = intersects_aabb_obb(&c, &b);
    let ca_obb = intersects_obb_obb(&Obb::from_aabb(&c), &b);
    assert_eq!(cab.is_some(), manifold.is_some(), "contact_manifold_obb_obb is None exactly when contact_obb_obb is");
    // The prediction is picked from the boxes, not from more input bytes (the
    // kept inputs decode as they did).
    noted(&a, &b, &cab, (a.half_extents().x.to_bits() ^ b.center().x.to_bits()) as u8);
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let (fa, fb, fc) = (oracle::obb_frame(&a), oracle::obb_frame(&b), oracle::aabb_frame(&c));
    let gap = oracle::sat_separation(&fa.0, &fa.1, &fa.2, &fb.0, &fb.1, &fb.2);
    let gap_c = oracle::sat_separation(&fc.0, &fc.1, &fc.2, &fb.0, &fb.1, &fb.2);
    check_verdict(ab, gap, tol, &format!("intersects_obb_obb({a:?}, {b:?})"));
    check_verdict(ba, gap, tol, "intersects_obb_obb (b, a)");
    check_verdict(cab.is_some(), gap, tol, "contact_obb_obb");
    check_verdict(cba.is_some(), gap, tol, "contact_obb_obb (b, a)");
    check_verdict(ca, gap_c, tol, "intersects_aabb_obb");
    check_verdict(ca_obb, gap_c, tol, "intersects_obb_obb(from_aabb)");
    if let (Some(x), Some(y)) = (cab, cba) {
        // Documented (OBB_EDGE_AXIS_REL_TOL): a face's support vertex can sit
        // off the other box's face, so the witness points are not checked
        // against the boxes, only against each other.
        let size = v64(a.half_extents()).sum() + v64(b.half_extents()).sum();
        // Edge contacts come from the closest points of two edges, whose
        // rounding is amplified by 1/sin of their angle (a used edge axis has
        // sin > OBB_EDGE_AXIS_MIN_SINE): widen the band by 4 eps * size / sin.
        let sin_min = (0..3)
            .flat_map(|i| (0..3).map(move |j| (i, j)))
            .map(|(i, j)| a.axes().column(i).cross(&b.axes().column(j)).norm() as f64)
            .filter(|&s| s > OBB_EDGE_AXIS_MIN_SINE as f64)
            .fold(1.0f64, f64::min);
        let tol_w = tol + 4.0 * f32::EPSILON as f64 * size / sin_min;
        check_contact(&x, tol_w, &format!("contact_obb_obb({a:?}, {b:?})"));
        check_contact(&y, tol_w, &format!("contact_obb_obb({b:?}, {a:?})"));
        // The SAT depth is the least overlap over the 15 axes, the oracle's
        // -gap; the library may overestimate it by its documented slack for
        // skipped near-parallel edge axes (OBB_EDGE_AXIS_MIN_SINE times the
        // boxes' size) and for preferring faces (OBB_EDGE_AXIS_REL_TOL times
        // the depth), never underestimate it.
        let slack = tol + 2.0 * OBB_EDGE_AXIS_MIN_SINE as f64 * size + OBB_EDGE_AXIS_REL_TOL as f64 * -gap;
        let d = x.depth as f64 + gap.min(0.0);
        assert!(d >= -tol && d <= slack, "contact_obb_obb({a:?}, {b:?}) depth {} vs oracle {}", x.depth, -gap);
        // Each argument order may overestimate within the same documented
        // slack (the face-over-edge preference can pick different axes).
        assert!((x.depth - y.depth).abs() as f64 <= slack, "contact_obb_obb depth not symmetric: {x:?} {y:?}");
    }
    hull_box(&a, &b, gap, tol);
    if let (Some(m), Some(x)) = (manifold, cab) {
        assert!(!m.is_empty() && m.len() <= 4);
        assert_unit(&m.normal, "contact_manifold_obb_obb");
        assert!((v64(&m.normal) - v64(&x.normal)).norm() <= 1e-4, "manifold normal differs from contact_obb_obb");
        for p in m.points() {
            assert!(p.depth >= 0.0 && p.depth as f64 <= x.depth as f64 + tol, "manifold depth {}", p.depth);
            let gap = p64(&p.point_a) - p64(&p.point_b) - v64(&m.normal) * p.depth as f64;
            assert!(gap.norm() <= tol, "contact_manifold_obb_obb: {p:?} is not depth * normal apart");
        }
    }
}

/// The noting box tests with every note (none, each face axis, and the note
/// the pair itself leaves) give the plain functions' answers bit for bit, as
/// their `Debug` text spells them: contacts, and manifolds within a
/// prediction picked by `pick`.
fn noted(a: &Obb, b: &Obb, contact: &Option<Contact>, pick: u8) {
    let prediction = [0.0, 0.02, 0.5, f32::NAN][usize::from(pick % 4)];
    let manifold = contact_manifold_obb_obb(a, b, prediction);
    let mut left = SeparatingAxis::NONE;
    let _ = contact_obb_obb_noting(a, b, &mut left);
    let notes = (0..6).filter_map(SeparatingAxis::from_face).chain([SeparatingAxis::NONE, left]);
    for note in notes {
        let mut n = note;
        let c = contact_obb_obb_noting(a, b, &mut n);
        assert_eq!(format!("{c:?}"), format!("{contact:?}"), "contact_obb_obb_noting({a:?}, {b:?}) with {note:?}");
        let mut n = note;
        let m = contact_manifold_obb_obb_noting(a, b, prediction, &mut n);
        assert_eq!(
            format!("{m:?}"),
            format!("{manifold:?}"),
            "contact_manifold_obb_obb_noting({a:?}, {b:?}, {prediction}) with {note:?}"
        );
    }
}

/// `contact_hull_obb` with box `a` as a hull of its eight corners against
/// box `b`: the same verdict as the f64 15-axis SAT (`gap`), and, overlapping,
/// the least overlap as its depth (the hull-box SAT is exact: no skipped or
/// preferred axis beyond its sliver limit and the hull's planar tolerance),
/// with a well-formed contact. Boxes too thin for a hull are skipped.
fn hull_box(a: &Obb, b: &Obb, gap: f64, tol: f64) {
    let h = a.half_extents();
    let corners: Vec<Point> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & (1 << bit) == 0 { -1.0 } else { 1.0 };
            Point::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)
        })
        .collect();
    let Ok(hull) = ConvexHull::try_new(&corners) else { return };
    let c = contact_hull_obb(&hull, &a.isometry(), b, 0.0);
    let size = v64(a.half_extents()).sum() + v64(b.half_extents()).sum();
    let band = tol + 3.0 * hull.tolerance() as f64 + 1e-5 * size;
    check_verdict(c.is_some(), gap, band, &format!("contact_hull_obb({a:?} as a hull, {b:?})"));
    if let Some(x) = c {
        check_contact(&x, band, &format!("contact_hull_obb({a:?} as a hull, {b:?})"));
        let d = x.depth as f64 + gap.min(0.0);
        assert!(d.abs() <= band, "contact_hull_obb({a:?} as a hull, {b:?}) depth {} vs oracle {}", x.depth, -gap);
    }
}

fn sphere_triangle(g: &mut Gen) {
    let (Some(s), Some(t)) = (g.sphere(), g.triangle()) else { return };
    let m = g.vector();
    let p = g.point();
    let i = intersects_sphere_triangle(&s, &t);
    let hit = cast_sphere_triangle(&s, &m, &t);
    check_sweep_wellformed(&hit, &m, "cast_sphere_triangle");
    let (q, d) = (closest_point_triangle(&p, &t), distance_point_triangle(&p, &t));
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let gap = t.dist(&p64(s.center())) - s.radius() as f64;
    check_verdict(i, gap, tol, &format!("intersects_sphere_triangle({s:?}, {t:?})"));
    check_sweep(hit, &s, &m, &t, tol, &format!("cast_sphere_triangle({s:?}, {m:?}, {t:?})"));
    let want = t.dist(&p64(&p));
    assert!((d as f64 - want).abs() <= tol, "distance_point_triangle({p:?}, {t:?}) = {d}, oracle {want}");
    assert!(t.dist(&p64(&q)) <= tol, "closest_point_triangle = {q:?} is off the triangle");
    assert!(((p64(&q) - p64(&p)).norm() - want).abs() <= tol, "closest_point_triangle = {q:?} is not closest");
}

fn aabb_triangle(g: &mut Gen) {
    let (Some(t), Some(a)) = (g.triangle(), g.aabb()) else { return };
    let i = intersects_aabb_triangle(&a, &t);
    if !g.scale.checked {
        return;
    }
    let tol = g.scale.tol();
    let verts = [p64(t.a()), p64(t.b()), p64(t.c())];
    let gap = oracle::sat_triangle_box(&verts, &p64(a.min()), &p64(a.max()));
    check_verdict(i, gap, tol, "intersects_aabb_triangle");
}

fn rays(g: &mut Gen) {
    let Some(ray) = g.ray() else { return };
    let shape = g.b.byte() % 6;
    let tol_of = |g: &Gen| g.scale.tol();
    match shape {
        0 => {
            let Some(s) = g.sphere() else { return };
            let h = cast_ray_sphere(&ray, &s);
            check_ray_wellformed(&h, &ray, "cast_ray_sphere");
            if g.scale.checked {
                check_ray_solid(h, &ray, &s, tol_of(g), &format!("cast_ray_sphere({s:?})"));
            }
        }
        1 => {
            let Some(a) = g.aabb() else { return };
            let h = cast_ray_aabb(&ray, &a);
            check_ray_wellformed(&h, &ray, "cast_ray_aabb");
            let interval = ray_aabb_interval(&PrecomputedRay::new(&ray), &a);
            assert_eq!(h.is_some(), interval.is_some(), "cast_ray_aabb and ray_aabb_interval disagree");
            if let (Some(h), Some(RayInterval { toi_enter: t0, toi_exit: t1 })) = (h, interval) {
                assert_eq!(h.toi, t0, "cast_ray_aabb toi != ray_aabb_interval entry");
                assert!(t0 <= t1);
            }
            if g.scale.checked {
                check_ray_solid(h, &ray, &a, tol_of(g), "cast_ray_aabb");
            }
        }
        2 => {
            let Some(o) = g.obb() else { return };
            let h = cast_ray_obb(&ray, &o);
            check_ray_wellformed(&h, &ray, "cast_ray_obb");
            if g.scale.checked {
                check_ray_solid(h, &ray, &o, tol_of(g), "cast_ray_obb");
            }
        }
        3 => {
            let Some(c) = g.capsule() else { return };
            let h = cast_ray_capsule(&ray, &c);
            check_ray_wellformed(&h, &ray, "cast_ray_capsule");
            if g.scale.checked {
                check_ray_solid(h, &ray, &c, tol_of(g), &format!("cast_ray_capsule({c:?})"));
            }
        }
        4 => {
            let Some(t) = g.triangle() else { return };
            let h = cast_ray_triangle(&ray, &t);
            check_ray_wellformed(&h, &ray, "cast_ray_triangle");
            if g.scale.checked {
                let (a, b, c) = (p64(t.a()), p64(t.b()), p64(t.c()));
                let n = (b - a).cross(&(c - a));
                let sin = n.norm() / ((b - a).norm() * (c - a).norm()).max(f64::MIN_POSITIVE);
                let inner = |q: &V| triangle_inner(&t, q);
                check_ray_surface(
                    h,
                    &ray,
                    &t,
                    (n, n.dot(&a)),
                    sin,
                    &inner,
                    tol_of(g),
                    &format!("cast_ray_triangle({ray:?}, {t:?})"),
                );
            }
        }
        _ => {
            let Some(pl) = g.plane() else { return };
            let h = cast_ray_plane(&ray, &pl);
            check_ray_wellformed(&h, &ray, "cast_ray_plane");
            if g.scale.checked {
                let plane = (v64(pl.normal()), pl.offset() as f64);
                let inner = |_: &V| f64::NEG_INFINITY;
                check_ray_surface(
                    h,
                    &ray,
                    &pl,
                    plane,
                    1.0,
                    &inner,
                    tol_of(g),
                    &format!("cast_ray_plane({ray:?}, {pl:?})"),
                );
            }
        }
    }
}

fn sphere_plane(g: &mut Gen) {
    let (Some(s), Some(pl)) = (g.sphere(), g.plane()) else { return };
    let m = g.vector();
    let hit = cast_sphere_plane(&s, &m, &pl);
    check_sweep_wellformed(&hit, &m, "cast_sphere_plane");
    if g.scale.checked {
        check_sweep(hit, &s, &m, &pl, g.scale.tol(), "cast_sphere_plane");
    }
}

fn wide_kernels(g: &mut Gen) {
    let Some(ray) = g.ray() else { return };
    let n = (g.b.byte() % 9) as usize;
    let boxes: Vec<Aabb> = (0..n).filter_map(|_| g.aabb()).collect();
    let pre = PrecomputedRay::new(&ray);
    let max_toi = ray.max_toi();
    let x8 = AabbX8::from_boxes(&boxes);
    let x4 = AabbX4::from_boxes(&boxes[..boxes.len().min(4)]);
    let mut results8 = vec![cast_ray_aabb_x8(&pre, &x8, max_toi), cast_ray_aabb_x8_scalar(&pre, &x8, max_toi)];
    let mut results4 = vec![cast_ray_aabb_x4(&pre, &x4, max_toi), cast_ray_aabb_x4_scalar(&pre, &x4, max_toi)];
    #[cfg(target_arch = "x86_64")]
    {
        results8.push(cast_ray_aabb_x8_sse2(&pre, &x8, max_toi));
        results4.push(cast_ray_aabb_x4_sse2(&pre, &x4, max_toi));
        if SimdLevel::Avx.is_available() {
            // SAFETY: the CPU has AVX (checked just above).
            results8.push(unsafe { cast_ray_aabb_x8_avx(&pre, &x8, max_toi) });
        }
    }
    check_lanes(&results8, &boxes, &pre);
    check_lanes(&results4, &boxes, &pre);
    box_triangle_lanes(g);
}

/// The box-triangle lane kernel (`contact_manifolds_obb_triangle_x8`)
/// equals `contact_manifold_obb_triangle` on every lane, bit for bit, on up
/// to eight triangles (degenerate ones included) and any prediction.
fn box_triangle_lanes(g: &mut Gen) {
    let Some(b) = g.obb() else { return };
    let n = (g.b.byte() % 9) as usize;
    let tris: Vec<Triangle> = (0..n).filter_map(|_| g.triangle()).collect();
    let prediction = g.b.f32_or_wild(g.wild);
    let mut lanes: TriangleLanes = [[[Real::NAN; TRIANGLE_LANES]; 3]; 3];
    for (l, t) in tris.iter().enumerate() {
        for (k, p) in t.vertices().iter().enumerate() {
            for axis in 0..3 {
                lanes[k][axis][l] = p[axis];
            }
        }
    }
    let mask = (1u32 << tris.len()) - 1;
    let mut got = [None; TRIANGLE_LANES];
    contact_manifolds_obb_triangle_x8(&b, &lanes, mask, prediction, |l, m| got[l] = Some(m));
    let bits = |m: &Option<ContactManifold>| {
        m.map(|m| {
            let mut out: Vec<u32> = m.normal.iter().map(|x| x.to_bits()).collect();
            for p in m.points() {
                out.extend(p.point_a.iter().chain(p.point_b.iter()).map(|x| x.to_bits()));
                out.extend([p.depth.to_bits(), p.id]);
            }
            out
        })
    };
    for (l, t) in tris.iter().enumerate() {
        let want = contact_manifold_obb_triangle(&b, t, prediction);
        assert_eq!(bits(&got[l]), bits(&want), "lane {l}: {b:?} {t:?} prediction {prediction}");
    }
}

/// Every kernel's lanes equal the scalar slab test, bit for bit.
fn check_lanes<const W: usize>(results: &[RayLaneHits<W>], boxes: &[Aabb], pre: &PrecomputedRay) {
    for r in results {
        for lane in 0..W {
            let want = boxes.get(lane).and_then(|b| ray_aabb_interval(pre, b));
            let hit = r.mask >> lane & 1 == 1;
            assert_eq!(hit, want.is_some(), "x{W} kernel lane {lane}: mask differs from ray_aabb_interval");
            if let Some(RayInterval { toi_enter: t, .. }) = want {
                assert_eq!(r.toi[lane].to_bits(), t.to_bits(), "x{W} kernel lane {lane}: toi differs");
            }
        }
    }
}
