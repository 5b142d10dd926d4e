//! The build: binned SAH splits (`binning.rs`) collapsed into 8-wide nodes
//! (`wide.rs`) as they are made, in three phases.
//!
//! 1. Top splits, in parallel: every binary node of more than `job_size(n)`
//!    primitives is split, the two halves recursing with `rayon::join`.
//! 2. Top nodes, serially: the wide nodes over those splits, in preorder. An
//!    internal lane of at most `job_size(n)` primitives becomes a job.
//! 3. Jobs, in parallel: each builds its subtree's wide nodes on its own
//!    slice of the primitives, by the greedy collapse as its splits are made
//!    or, for [`Collapse::Optimal`], by the SAH-optimal program
//!    (`optimal.rs`) over its whole binary subtree; the results are appended
//!    in the order of the jobs' first primitive, child indices shifted.
//!
//! Determinism: every split depends only on the primitives of its range, so
//! the binary tree, the collapse and hence the nodes are the same for any
//! number of threads; `job_size` depends on `n` only, so the node order is
//! too.

use super::binning::{partition, plan, Bins, Bounds, Extent, Knobs, Plan, PrimRef, MAX_BINS};
use super::optimal::{BinNode, Optimal};
use super::wide::{collapse, Splittable, WideNode, WIDTH};
use super::{BuildOptions, Collapse, LeafCost};
use proxima_narrowphase::Aabb;
use smallvec::SmallVec;

/// A binary node of the build: a range of the primitive array, its box, its
/// plan, and (top nodes only) its already-split children in the top arena.
#[derive(Clone, Copy, Debug)]
struct Cand {
    start: u32,
    len: u32,
    bounds: Bounds,
    area: f32,
    plan: Plan,
    kids: Option<[u32; 2]>,
}

impl Splittable for Cand {
    fn is_split(&self) -> bool {
        self.plan != Plan::Leaf
    }
    fn area(&self) -> f32 {
        self.area
    }
}

/// Plans the node over `prims` (which start at `start` in the whole array).
fn cand(knobs: &Knobs, scratch: &mut Bins, prims: &[PrimRef], start: usize, ext: &Extent) -> Cand {
    let plan = plan(knobs, scratch, prims, ext);
    // Fewer than 2^32 boxes (checked in `build`).
    Cand { start: start as u32, len: prims.len() as u32, bounds: ext.boxes, area: ext.boxes.area(), plan, kids: None }
}

#[cfg(feature = "parallel")]
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    rayon::join(a, b)
}

#[cfg(not(feature = "parallel"))]
fn join<A, B>(a: impl FnOnce() -> A, b: impl FnOnce() -> B) -> (A, B) {
    (a(), b())
}

/// Phase 1: plans the node over `prims` and, when it has more than `limit`
/// primitives, splits it and recurses on both halves in parallel. Returns
/// the subtree as an arena, root first, `kids` indexing into it.
fn presplit(knobs: &Knobs, prims: &mut [PrimRef], start: usize, ext: &Extent, limit: usize) -> Vec<Cand> {
    let mut scratch = Bins::new();
    let mut root = cand(knobs, &mut scratch, prims, start, ext);
    if !root.is_split() || root.len as usize <= limit {
        return vec![root];
    }
    let mid = partition(prims, root.plan);
    let (lp, rp) = prims.split_at_mut(mid);
    let (la, ra) = join(
        || presplit(knobs, lp, start, &extent_par(lp), limit),
        || presplit(knobs, rp, start + mid, &extent_par(rp), limit),
    );
    let shift = |c: Cand, by: usize| Cand { kids: c.kids.map(|[a, b]| [a + by as u32, b + by as u32]), ..c };
    root.kids = Some([1, 1 + la.len() as u32]);
    let mut arena = Vec::with_capacity(1 + la.len() + ra.len());
    arena.push(root);
    arena.extend(la.iter().map(|&c| shift(c, 1)));
    arena.extend(ra.iter().map(|&c| shift(c, 1 + la.len())));
    arena
}

/// A subtree left for phase 3.
#[derive(Clone, Copy, Debug)]
struct Job {
    cand: Cand,
    parent: u32,
    lane: usize,
}

/// Phases 2 and 3: wide nodes over a slice of the primitive array.
struct Builder<'a> {
    /// The primitives `offset..offset + prims.len()` of the whole array.
    prims: &'a mut [PrimRef],
    offset: usize,
    knobs: Knobs,
    scratch: Bins,
    /// Phase 1's splits (empty for jobs).
    top: &'a [Cand],
    nodes: Vec<WideNode>,
    /// Internal lanes not in `top` (phase 2 only), deferred to phase 3.
    jobs: Option<Vec<Job>>,
}

impl Builder<'_> {
    /// The two children of `c`: from phase 1, or split now.
    fn split(&mut self, c: &Cand) -> [Cand; 2] {
        if let Some([a, b]) = c.kids {
            return [self.top[a as usize], self.top[b as usize]];
        }
        let (start, lo) = (c.start as usize, c.start as usize - self.offset);
        let prims = &mut self.prims[lo..lo + c.len as usize];
        let mid = partition(prims, c.plan);
        let (left, right) = prims.split_at(mid);
        [
            cand(&self.knobs, &mut self.scratch, left, start, &Extent::of(left)),
            cand(&self.knobs, &mut self.scratch, right, start + mid, &Extent::of(right)),
        ]
    }

    /// Phase 3: materialises the binary tree of the internal node `root`
    /// (parents before children), collapses it by the SAH-optimal program
    /// (`optimal.rs`) and emits its wide nodes in preorder.
    fn run_optimal(&mut self, root: Cand) {
        let mut arena = vec![root];
        let mut i = 0;
        while i < arena.len() {
            let c = arena[i];
            if c.is_split() {
                let [l, r] = self.split(&c);
                let at = u32::try_from(arena.len()).expect("arena fits u32");
                arena.push(l);
                arena.push(r);
                arena[i].kids = Some([at, at + 1]);
            }
            i += 1;
        }
        let bins: Vec<BinNode> = arena.iter().map(|c| BinNode { area: c.area, len: c.len, kids: c.kids }).collect();
        let table = Optimal::solve(&bins, self.knobs.max_leaf);
        let mut stack: Vec<(u32, Option<(u32, usize)>)> = vec![(0, None)];
        while let Some((at, link)) = stack.pop() {
            let index = u32::try_from(self.nodes.len()).expect("node count fits u32");
            if let Some((parent, lane)) = link {
                self.nodes[parent as usize].child[lane] = index;
            }
            let (lanes, inner) = table.lanes(&bins, at);
            let mut node = WideNode::EMPTY;
            node.len = lanes.len() as u8;
            node.inner = inner;
            let mut internal: SmallVec<[(u32, usize); WIDTH]> = SmallVec::new();
            for (lane, pick) in lanes.iter().enumerate() {
                let c = &arena[pick.node as usize];
                node.bounds.set(lane, &c.bounds.to_aabb());
                if pick.leaf {
                    node.child[lane] = c.start;
                    node.count[lane] = c.len as u8;
                } else {
                    internal.push((pick.node, lane));
                }
            }
            self.nodes.push(node);
            stack.extend(internal.iter().rev().map(|&(c, lane)| (c, Some((index, lane)))));
        }
    }

    /// Builds the subtree of the internal node `root` depth first, nodes in
    /// preorder; `link` is the lane to point at each node once it has an index.
    fn run(&mut self, root: Cand) {
        let mut stack: Vec<(Cand, Option<(u32, usize)>)> = vec![(root, None)];
        while let Some((cand, link)) = stack.pop() {
            let index = u32::try_from(self.nodes.len()).expect("node count fits u32");
            if let Some((parent, lane)) = link {
                self.nodes[parent as usize].child[lane] = index;
            }
            self.nodes.push(WideNode::EMPTY);
            let collapsed = collapse(cand, |c| self.split(c));
            let mut node = WideNode::EMPTY;
            node.len = collapsed.lanes.len() as u8;
            node.inner = collapsed.inner;
            let mut internal: SmallVec<[(Cand, usize); WIDTH]> = SmallVec::new();
            for (lane, c) in collapsed.lanes.iter().enumerate() {
                node.bounds.set(lane, &c.bounds.to_aabb());
                if !c.is_split() {
                    node.child[lane] = c.start;
                    node.count[lane] = c.len as u8;
                } else if let (Some(jobs), None) = (&mut self.jobs, c.kids) {
                    jobs.push(Job { cand: *c, parent: index, lane });
                } else {
                    internal.push((*c, lane));
                }
            }
            self.nodes[index as usize] = node;
            stack.extend(internal.iter().rev().map(|&(c, lane)| (c, Some((index, lane)))));
        }
    }
}

/// The build's output: nodes in a parent-before-child order, and the
/// primitives in leaf order.
pub(crate) struct Built {
    pub(crate) nodes: Vec<WideNode>,
    pub(crate) prims: Vec<PrimRef>,
}

/// Subtrees of at most this many primitives are built as independent jobs:
/// a function of `n` only, so the node order is the same for any thread count.
fn job_size(n: usize) -> usize {
    (n / 64).max(4096)
}

/// Builds the tree over `boxes` (ids are their indices).
pub(crate) fn build(boxes: &[Aabb], options: &BuildOptions) -> Built {
    assert!(boxes.len() < u32::MAX as usize, "StaticBvh holds fewer than 2^32 - 1 boxes");
    let mut prims = make_prims(boxes);
    if prims.is_empty() {
        return Built { nodes: Vec::new(), prims };
    }
    let knobs = Knobs {
        bins: options.bins.clamp(2, MAX_BINS),
        max_leaf: options.max_leaf_size.clamp(1, usize::from(u8::MAX)),
        collapse: options.collapse,
        block: match options.leaf_cost {
            LeafCost::PerPrimitive => 1,
            LeafCost::Blocks { size, .. } => u32::from(size.max(1)),
        },
        block_cost: match options.leaf_cost {
            LeafCost::PerPrimitive => 1.0,
            LeafCost::Blocks { cost, .. } => f32::from(cost.max(1)),
        },
    };
    let ext = extent_par(&prims);
    let limit = job_size(prims.len());
    let top = presplit(&knobs, &mut prims, 0, &ext, limit);
    let root = top[0];
    let mut b = Builder {
        prims: &mut prims,
        offset: 0,
        knobs,
        scratch: Bins::new(),
        top: &top,
        nodes: Vec::new(),
        jobs: Some(Vec::new()),
    };
    if root.is_split() {
        b.run(root);
    } else {
        let mut node = WideNode::EMPTY;
        node.len = 1;
        node.bounds.set(0, &root.bounds.to_aabb());
        node.child[0] = 0;
        node.count[0] = root.len as u8;
        b.nodes.push(node);
    }
    let Builder { nodes: top_nodes, jobs, .. } = b;
    let mut jobs = jobs.unwrap_or_default();
    jobs.sort_by_key(|j| j.cand.start);
    let built = run_jobs(&mut prims, &jobs, knobs);

    let nodes = append_jobs(top_nodes, &jobs, built);
    Built { nodes, prims }
}

/// Phase 3's end: the jobs' nodes after the top nodes, in job order, child
/// indices shifted by each job's base and each job's root linked from its
/// parent lane. The copies run in parallel, into disjoint slices of the
/// output's spare capacity (written once: no serial fill before the copy,
/// and the new pages are first touched by the threads that fill them).
fn append_jobs(mut nodes: Vec<WideNode>, jobs: &[Job], built: Vec<Vec<WideNode>>) -> Vec<WideNode> {
    let top = nodes.len();
    let mut base = top;
    for (job, job_nodes) in jobs.iter().zip(&built) {
        nodes[job.parent as usize].child[job.lane] = u32::try_from(base).expect("node count fits u32");
        base += job_nodes.len();
    }
    let total = base;
    nodes.reserve_exact(total - top);
    let mut tasks = Vec::with_capacity(built.len());
    let mut rest = &mut nodes.spare_capacity_mut()[..total - top];
    let mut base = top as u32;
    for job_nodes in &built {
        let (dst, tail) = rest.split_at_mut(job_nodes.len());
        tasks.push((dst, job_nodes.as_slice(), base));
        base += job_nodes.len() as u32;
        rest = tail;
    }
    let copy = |(dst, src, base): (&mut [core::mem::MaybeUninit<WideNode>], &[WideNode], u32)| {
        for (d, s) in dst.iter_mut().zip(src) {
            let mut node = *s;
            for lane in 0..usize::from(node.len) {
                if node.count[lane] == 0 {
                    node.child[lane] += base;
                }
            }
            d.write(node);
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        tasks.into_par_iter().for_each(copy);
    }
    #[cfg(not(feature = "parallel"))]
    tasks.into_iter().for_each(copy);
    // SAFETY: the job slices tile spare slots `0..total - top` exactly (each
    // is as long as its job's node list, taken in turn), and every slot of
    // each slice was written by `copy`; `reserve_exact` made the capacity.
    unsafe { nodes.set_len(total) };
    nodes
}

/// Phase 3: every job on its own disjoint slice, in parallel; results in job order.
fn run_jobs(prims: &mut [PrimRef], jobs: &[Job], knobs: Knobs) -> Vec<Vec<WideNode>> {
    let mut tasks: Vec<(Job, &mut [PrimRef])> = Vec::with_capacity(jobs.len());
    let mut rest = prims;
    let mut rest_start = 0;
    for job in jobs {
        let (start, len) = (job.cand.start as usize, job.cand.len as usize);
        let (_, tail) = rest.split_at_mut(start - rest_start);
        let (mine, tail) = tail.split_at_mut(len);
        tasks.push((*job, mine));
        rest = tail;
        rest_start = start + len;
    }
    let run = |(job, slice): (Job, &mut [PrimRef])| {
        let mut b = Builder {
            prims: slice,
            offset: job.cand.start as usize,
            knobs,
            scratch: Bins::new(),
            top: &[],
            // About 0.3 nodes per box on the benchmark scenes.
            nodes: Vec::with_capacity(job.cand.len as usize / 3 + 16),
            jobs: None,
        };
        match knobs.collapse {
            Collapse::Greedy => b.run(job.cand),
            Collapse::Optimal => b.run_optimal(job.cand),
        }
        b.nodes
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        tasks.into_par_iter().map(run).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        tasks.into_iter().map(run).collect()
    }
}

#[cfg(feature = "parallel")]
fn make_prims(boxes: &[Aabb]) -> Vec<PrimRef> {
    use rayon::prelude::*;
    boxes.par_iter().enumerate().map(|(i, b)| PrimRef::new(i as u32, b)).collect()
}

#[cfg(not(feature = "parallel"))]
fn make_prims(boxes: &[Aabb]) -> Vec<PrimRef> {
    boxes.iter().enumerate().map(|(i, b)| PrimRef::new(i as u32, b)).collect()
}

#[cfg(feature = "parallel")]
fn extent_par(prims: &[PrimRef]) -> Extent {
    use rayon::prelude::*;
    if prims.len() < 1 << 16 {
        return Extent::of(prims);
    }
    prims.par_chunks(1 << 14).map(Extent::of).reduce(
        || Extent::EMPTY,
        |mut a, b| {
            a.merge(&b);
            a
        },
    )
}

#[cfg(not(feature = "parallel"))]
fn extent_par(prims: &[PrimRef]) -> Extent {
    Extent::of(prims)
}
