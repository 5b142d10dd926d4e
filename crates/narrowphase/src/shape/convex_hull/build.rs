//! Quickhull in f64: the triangle hull of a point cloud.
//!
//! Barber, Dobkin, Huhdanpaa, "The Quickhull Algorithm for Convex Hulls"
//! (ACM TOMS 22, 1996), with two tolerances:
//! - a point becomes an eye only when it lies more than `tol` above its
//!   triangle, so a point within `tol` of the hull (a near-duplicate, a point
//!   on a face or an edge) never becomes a vertex. Points above a triangle by
//!   less stay in its list: near a sharp edge of a thin hull, being within
//!   `tol` of every plane does not mean being within `tol` of the hull, and a
//!   later triangle may have them farther above;
//! - a triangle is visible from the eye when the eye lies more than
//!   `tol * 1e-5` above it: far above the f64 rounding of a distance, and so
//!   small that the hull stays convex to within it.
//!
//! Rounding can still break a step (a visible region with a hole, a new
//! triangle folded over its hidden neighbour); each such case is repaired or,
//! failing that, the eye is dropped (see `quickhull`).

use crate::error::ShapeError;
use nalgebra::Vector3;

pub(super) type V3 = Vector3<f64>;

/// No point, no triangle: the end of a chain.
const NONE: u32 = u32::MAX;

/// A chain of points threaded through [`Chains::next`], first to last in the
/// order they were added.
#[derive(Clone, Copy)]
struct Chain {
    head: u32,
    tail: u32,
}

impl Chain {
    const EMPTY: Self = Self { head: NONE, tail: NONE };

    #[inline]
    fn is_empty(&self) -> bool {
        self.head == NONE
    }
}

/// The links of every chain: a point is in at most one chain at a time, so
/// one `next` per point holds them all without an allocation per triangle.
struct Chains {
    next: Vec<u32>,
}

impl Chains {
    /// Appends point `i` (in no chain) to `chain`.
    #[inline]
    fn push(&mut self, chain: &mut Chain, i: u32) {
        self.next[i as usize] = NONE;
        if chain.tail == NONE {
            chain.head = i;
        } else {
            self.next[chain.tail as usize] = i;
        }
        chain.tail = i;
    }

    /// The points of `chain`, first to last.
    fn iter(&self, chain: Chain) -> impl Iterator<Item = u32> + '_ {
        let mut at = chain.head;
        core::iter::from_fn(move || {
            let i = at;
            (i != NONE).then(|| {
                at = self.next[i as usize];
                i
            })
        })
    }

    /// Moves the points of `chain` to the end of `out` and empties it.
    fn take_into(&self, chain: &mut Chain, out: &mut Vec<u32>) {
        out.extend(self.iter(*chain));
        *chain = Chain::EMPTY;
    }
}

/// A triangle of the hull under construction: vertices CCW seen from
/// outside, `adj[i]` the triangle across the edge `v[i] -> v[i + 1]`.
pub(super) struct Tri {
    pub(super) v: [u32; 3],
    pub(super) adj: [u32; 3],
    /// Unit outward normal.
    pub(super) normal: V3,
    /// Plane offset: `normal . x = offset` on the plane.
    pub(super) offset: f64,
    /// Points more than `tol` above: eye candidates.
    outside: Chain,
    /// Points above by at most `tol`: never eyes, but a later triangle may
    /// have them farther above.
    near: Chain,
    alive: bool,
    /// Marked visible in the step of this number.
    visit: u32,
    /// Entered by the horizon walk in the step of this number.
    walk: u32,
}

impl Tri {
    fn new(v: [u32; 3], pts: &[V3]) -> Option<Self> {
        let [a, b, c] = v.map(|i| pts[i as usize]);
        let n = (b - a).cross(&(c - a));
        let len = n.norm();
        if len <= 0.0 || !len.is_finite() {
            return None;
        }
        let normal = n / len;
        Some(Self {
            v,
            adj: [0; 3],
            normal,
            offset: normal.dot(&a),
            outside: Chain::EMPTY,
            near: Chain::EMPTY,
            alive: true,
            visit: 0,
            walk: 0,
        })
    }

    #[inline]
    fn dist(&self, p: &V3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    /// The index `j` of the edge `b -> a` in this triangle.
    pub(super) fn edge_back(&self, a: u32, b: u32) -> usize {
        (0..3).find(|&j| self.v[j] == b && self.v[(j + 1) % 3] == a).expect("hull adjacency is symmetric")
    }
}

/// An edge of the horizon: `a -> b` as it ran in the visible triangle, and
/// the hidden triangle across it.
struct HorizonEdge {
    a: u32,
    b: u32,
    hidden: u32,
}

/// The hull's triangles (compacted, adjacency renumbered), or why the cloud
/// spans no volume: all points within `tol` of one point or a line
/// ([`ShapeError::CollinearPoints`]) or of a plane ([`ShapeError::CoplanarPoints`]).
pub(super) fn quickhull(pts: &[V3], tol: f64) -> Result<Vec<Tri>, ShapeError> {
    let seed = initial_simplex(pts, tol)?;
    let mut tris = seed_tetrahedron(seed, pts);
    // The hull of `V` vertices has `2V - 4` triangles; the steps leave dead
    // ones besides, about as many again on a cloud whose points are all
    // vertices.
    tris.reserve(2 * pts.len());
    // A point strictly inside every hull from here on: every new triangle
    // must face away from it (a triangle folded over its hidden neighbour
    // does not).
    let interior = seed.iter().map(|&i| pts[i as usize]).sum::<V3>() / 4.0;
    let mut chains = Chains { next: vec![NONE; pts.len()] };
    let mut stack = Vec::new();
    let rest = (0..pts.len() as u32).filter(|i| !seed.contains(i));
    assign_outside(pts, &mut tris, &mut chains, rest, &[0, 1, 2, 3], tol, &mut stack);
    let mut vmark = vec![0u32; pts.len()];
    let mut gen = 0u32;
    let mut loop_gen = 0u32;
    let mut visible = Vec::new();
    let mut horizon = Vec::new();
    let (mut walk_stack, mut orphans, mut candidates) = (Vec::new(), Vec::new(), Vec::new());
    let mut new_tris = Vec::new();
    while let Some(f) = stack.pop() {
        let face = &tris[f as usize];
        if !face.alive || face.outside.is_empty() {
            continue;
        }
        // The eye: the outside point farthest above the triangle (the first
        // of the farthest).
        let (mut eye, mut far) = (face.outside.head, f64::MIN);
        for i in chains.iter(face.outside) {
            let d = face.dist(&pts[i as usize]);
            if d > far {
                (eye, far) = (i, d);
            }
        }
        // Visible: more than `tol * 1e-5` below the eye (far above the f64
        // rounding of a distance, ~1e-16 of the size, and so thin that the
        // new triangles make the hull concave by no more than that); when
        // rounding makes the region other than a disc, visible above 0. A new triangle that
        // folds over its hidden neighbour (faces the interior, or has no
        // normal) takes that neighbour into the region, and the step is tried
        // again.
        let mut built = false;
        'thresholds: for threshold in [tol * 1e-5, 0.0] {
            gen += 1;
            mark_visible(&mut tris, f, &pts[eye as usize], threshold, gen, &mut visible);
            let mut filled = false;
            for _ in 0..8 {
                loop_gen += 1;
                trace_horizon(&mut tris, f, gen, loop_gen, &mut horizon, &mut walk_stack);
                if !horizon_is_loop(&horizon, &mut vmark, loop_gen) {
                    if filled {
                        continue 'thresholds;
                    }
                    fill_holes(&mut tris, gen, &mut visible);
                    filled = true;
                    continue;
                }
                new_tris.clear();
                let folded = horizon.iter().position(|h| {
                    match Tri::new([h.a, h.b, eye], pts).filter(|t| t.dist(&interior) < 0.0) {
                        Some(t) => {
                            new_tris.push(t);
                            false
                        }
                        None => true,
                    }
                });
                match folded {
                    None => {
                        built = true;
                        break 'thresholds;
                    }
                    Some(k) => {
                        let h = horizon[k].hidden;
                        tris[h as usize].visit = gen;
                        visible.push(h);
                    }
                }
            }
        }
        if !built {
            // Rounding broke the visible region (not a disc, or a new triangle
            // with no normal or facing the interior): the eye is dropped, the
            // last point taking its place in the chain.
            let t = &mut tris[f as usize];
            orphans.clear();
            chains.take_into(&mut t.outside, &mut orphans);
            let k = orphans.iter().position(|&i| i == eye).expect("the eye is an outside point");
            orphans.swap_remove(k);
            for &i in &orphans {
                chains.push(&mut t.outside, i);
            }
            stack.push(f);
            continue;
        };
        let base = tris.len() as u32;
        let n = horizon.len() as u32;
        for (k, (h, mut t)) in horizon.iter().zip(new_tris.drain(..)).enumerate() {
            let k = k as u32;
            t.adj = [h.hidden, base + (k + 1) % n, base + (k + n - 1) % n];
            let hidden = &mut tris[h.hidden as usize];
            let j = hidden.edge_back(h.a, h.b);
            hidden.adj[j] = base + k;
            tris.push(t);
        }
        // The points of the visible triangles go to the new triangles, and
        // the near points of the hidden triangles on the horizon (a new
        // triangle may have them farther above) are given again.
        orphans.clear();
        for &vf in &visible {
            let t = &mut tris[vf as usize];
            t.alive = false;
            chains.take_into(&mut t.outside, &mut orphans);
            chains.take_into(&mut t.near, &mut orphans);
        }
        candidates.clear();
        candidates.extend(base..base + n);
        let moved = orphans.iter().copied().filter(|&i| i != eye);
        assign_outside(pts, &mut tris, &mut chains, moved, &candidates, tol, &mut stack);
        // A hidden triangle's near points, to it or a new triangle.
        for h in &horizon {
            if !tris[h.hidden as usize].near.is_empty() {
                orphans.clear();
                chains.take_into(&mut tris[h.hidden as usize].near, &mut orphans);
                candidates.truncate(n as usize);
                candidates.push(h.hidden);
                assign_outside(pts, &mut tris, &mut chains, orphans.iter().copied(), &candidates, tol, &mut stack);
            }
        }
    }
    Ok(compact(tris))
}

/// Four points spanning a volume: the farthest pair among the extremes along
/// the axes, the point farthest from their line, the point farthest from
/// their plane.
fn initial_simplex(pts: &[V3], tol: f64) -> Result<[u32; 4], ShapeError> {
    let (mut lo, mut hi) = ([0usize; 3], [0usize; 3]);
    for (i, p) in pts.iter().enumerate() {
        for a in 0..3 {
            if p[a] < pts[lo[a]][a] {
                lo[a] = i;
            }
            if p[a] > pts[hi[a]][a] {
                hi[a] = i;
            }
        }
    }
    let a = (0..3).max_by(|&x, &y| (pts[hi[x]] - pts[lo[x]]).norm().total_cmp(&(pts[hi[y]] - pts[lo[y]]).norm()));
    let a = a.unwrap_or(0);
    let (i0, i1) = (lo[a], hi[a]);
    let dir = pts[i1] - pts[i0];
    if dir.norm() <= tol {
        return Err(ShapeError::CollinearPoints);
    }
    let dir = dir.normalize();
    let far = |f: &dyn Fn(&V3) -> f64| {
        pts.iter().enumerate().map(|(i, p)| (i, f(p))).fold((0, f64::MIN), |b, x| if x.1 > b.1 { x } else { b })
    };
    let (i2, d2) = far(&|p| (p - pts[i0]).cross(&dir).norm());
    if d2 <= tol {
        return Err(ShapeError::CollinearPoints);
    }
    let n = (pts[i1] - pts[i0]).cross(&(pts[i2] - pts[i0])).normalize();
    let (i3, d3) = far(&|p| n.dot(&(p - pts[i0])).abs());
    if d3 <= tol {
        return Err(ShapeError::CoplanarPoints);
    }
    // Order (a, b, c) CCW seen from the side away from d.
    let (b, c) = if n.dot(&(pts[i3] - pts[i0])) > 0.0 { (i2, i1) } else { (i1, i2) };
    Ok([i0, b, c, i3].map(|i| i as u32))
}

/// The tetrahedron `a b c d` with `d` below `a b c`, adjacency linked.
fn seed_tetrahedron([a, b, c, d]: [u32; 4], pts: &[V3]) -> Vec<Tri> {
    let faces = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]];
    let mut tris: Vec<Tri> = faces.iter().map(|&v| Tri::new(v, pts).expect("seed points span a volume")).collect();
    for f in 0..4 {
        for e in 0..3 {
            let (p, q) = (faces[f][e], faces[f][(e + 1) % 3]);
            let g = (0..4).find(|&g| g != f && (0..3).any(|j| faces[g][j] == q && faces[g][(j + 1) % 3] == p));
            tris[f].adj[e] = g.expect("a tetrahedron is closed") as u32;
        }
    }
    tris
}

/// Gives each point to the triangle among `candidates` it lies farthest
/// above, when it lies above any: to the end of its `outside` chain when by
/// more than `tol`, else of its `near` chain; the others are inside and
/// dropped. A triangle that receives its first outside point goes on the
/// stack.
fn assign_outside(
    pts: &[V3],
    tris: &mut [Tri],
    chains: &mut Chains,
    points: impl Iterator<Item = u32>,
    candidates: &[u32],
    tol: f64,
    stack: &mut Vec<u32>,
) {
    for i in points {
        let p = &pts[i as usize];
        let mut best = (u32::MAX, 0.0);
        for &f in candidates {
            let d = tris[f as usize].dist(p);
            if d > best.1 {
                best = (f, d);
            }
        }
        if best.0 == u32::MAX {
            continue;
        }
        let t = &mut tris[best.0 as usize];
        if best.1 <= tol {
            chains.push(&mut t.near, i);
        } else {
            if t.outside.is_empty() {
                stack.push(best.0);
            }
            chains.push(&mut t.outside, i);
        }
    }
}

/// Marks with `gen` the triangles visible from `eye` (more than `threshold`
/// below it) connected to `start`, and lists them in `visible`.
fn mark_visible(tris: &mut [Tri], start: u32, eye: &V3, threshold: f64, gen: u32, visible: &mut Vec<u32>) {
    visible.clear();
    tris[start as usize].visit = gen;
    visible.push(start);
    let mut k = 0;
    while k < visible.len() {
        let f = visible[k] as usize;
        k += 1;
        for nb in tris[f].adj {
            let t = &mut tris[nb as usize];
            if t.visit != gen && t.dist(eye) > threshold {
                t.visit = gen;
                visible.push(nb);
            }
        }
    }
}

/// Takes into the region marked `gen` every hidden triangle whose three
/// neighbours are in it (a hole, left by a hull convex only to within `tol`).
fn fill_holes(tris: &mut [Tri], gen: u32, visible: &mut Vec<u32>) {
    loop {
        let before = visible.len();
        for k in 0..visible.len() {
            for nb in tris[visible[k] as usize].adj {
                let t = &tris[nb as usize];
                if t.visit != gen && t.adj.iter().all(|&a| tris[a as usize].visit == gen) {
                    tris[nb as usize].visit = gen;
                    visible.push(nb);
                }
            }
        }
        if visible.len() == before {
            break;
        }
    }
}

/// The edges around the triangles marked `gen` (connected to `start`), in
/// CCW order seen from outside: a depth-first walk that enters each triangle
/// through one edge and leaves through the next two in order traces the
/// boundary of a disc as one loop.
fn trace_horizon(
    tris: &mut [Tri],
    start: u32,
    gen: u32,
    walk: u32,
    horizon: &mut Vec<HorizonEdge>,
    stack: &mut Vec<(u32, u8, usize)>,
) {
    horizon.clear();
    tris[start as usize].walk = walk;
    // (triangle, edges walked, edge to start from)
    stack.clear();
    stack.push((start, 0u8, 0usize));
    while let Some(top) = stack.last_mut() {
        if top.1 == 3 {
            stack.pop();
            continue;
        }
        let (f, e) = (top.0 as usize, (top.2 + top.1 as usize) % 3);
        top.1 += 1;
        let nb = tris[f].adj[e];
        let nbt = &tris[nb as usize];
        if nbt.walk == walk {
            continue;
        }
        let (a, b) = (tris[f].v[e], tris[f].v[(e + 1) % 3]);
        if nbt.visit == gen {
            let back = nbt.edge_back(a, b);
            tris[nb as usize].walk = walk;
            stack.push((nb, 1, back));
        } else {
            horizon.push(HorizonEdge { a, b, hidden: nb });
        }
    }
}

/// True when the horizon is one simple closed loop (each edge starts where
/// the previous one ends, no vertex twice).
fn horizon_is_loop(horizon: &[HorizonEdge], vmark: &mut [u32], gen: u32) -> bool {
    let n = horizon.len();
    n >= 3
        && horizon.iter().enumerate().all(|(k, h)| {
            let fresh = vmark[h.a as usize] != gen;
            vmark[h.a as usize] = gen;
            fresh && h.b == horizon[(k + 1) % n].a
        })
}

/// The live triangles, renumbered.
fn compact(tris: Vec<Tri>) -> Vec<Tri> {
    let mut new_index = vec![u32::MAX; tris.len()];
    let mut next = 0;
    for (i, t) in tris.iter().enumerate() {
        if t.alive {
            new_index[i] = next;
            next += 1;
        }
    }
    tris.into_iter()
        .filter(|t| t.alive)
        .map(|mut t| {
            t.adj = t.adj.map(|a| new_index[a as usize]);
            t
        })
        .collect()
}
