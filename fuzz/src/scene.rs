//! Properties of a [`Scene`] and its [`ContactPipeline`] under arbitrary
//! operation sequences: the body of `fuzz_targets/scene_ops.rs` and of the
//! proptest suite `crates/scene/tests/fuzz_properties.rs`.
//!
//! After every operation:
//! - no panic, and `Scene::validate()` passes;
//! - a rejected call (bad shape or pose: NaN, infinity, negative size,
//!   non-unit rotation; CCD on a non-sphere; a stale handle; a bad mesh)
//!   returns the documented [`SceneError`] / [`MeshError`] and leaves every
//!   collider, pose and box as it was;
//! - every query equals a brute-force loop over `Scene::iter()` with the
//!   same exact shape tests (ray tois bit for bit), and the batch ray cast
//!   equals the single casts;
//! - after `ContactPipeline::update` (with the tracker's or the grid's pair
//!   search, switched now and then), each reported contact is the exact
//!   contact of its pair, every pair of colliders whose shapes touch and
//!   whose boxes overlap is reported (never static-static, groups
//!   interacting), the events are the change of the contact set, CCD impacts
//!   are well formed, and an update without motion changes nothing; with
//!   manifolds kept across frames (`with_manifold_reuse`, chosen by the first
//!   byte's high bit) the contacts are of legal pairs, finite and touching,
//!   and the events the change of the set;
//! - a broadphase-only pipeline (`with_broadphase_only`, at a distance the
//!   first byte picks) updated beside it lists exactly the pairs brute force
//!   finds by the documented rule (pairing colliders, interacting groups,
//!   boxes grown by the slack and half the distance touching), and its
//!   events, in pair order, are the change of that list (the two pipelines
//!   share the scene's change log, so this one reads every collider at each
//!   update: its incremental path is tested in
//!   `crates/scene/tests/pipeline_broadphase_only.rs`);
//! - a clone answers every query exactly as the original.

use crate::bytes::Bytes;
use core::ops::ControlFlow;
use proxima_broadphase::BroadPhase;
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay};
use proxima_narrowphase::*;
use proxima_scene::*;
use std::sync::Arc;

/// Operations per input at most.
const MAX_OPS: usize = 64;

struct World {
    scene: Scene,
    pipeline: ContactPipeline,
    /// The pipeline computes every contact afresh (no manifold reuse).
    exact: bool,
    /// A broadphase-only pipeline on the same scene, and its distance.
    pairs: ContactPipeline,
    distance: Real,
    live: Vec<ColliderHandle>,
    dead: Vec<ColliderHandle>,
    meshes: Vec<Arc<TriMesh>>,
}

/// What a rejected call must leave unchanged.
#[derive(Debug, PartialEq)]
struct Snapshot {
    colliders: Vec<(ColliderHandle, Isometry, Aabb, BodyKind, bool, u64, CollisionGroups)>,
    trees: TreeSizes,
}

/// A hull of half-extents `h`: the box's corners and a point beyond its +x
/// face; `None` when the hull builder refuses the cloud (flat, non-finite).
fn hull(h: Vector) -> Option<Arc<ConvexHull>> {
    let mut points: Vec<Point> =
        (0..8).map(|i| Point::new([-h.x, h.x][i & 1], [-h.y, h.y][(i >> 1) & 1], [-h.z, h.z][i >> 2])).collect();
    points.push(Point::new(1.5 * h.x, 0.0, 0.0));
    ConvexHull::try_new(&points).ok().map(Arc::new)
}

/// Runs one operation sequence decoded from `data`.
pub fn check(data: &[u8]) {
    let mut b = Bytes::new(data);
    // The pipeline's pair search, from the first byte (and switched now and
    // then by the updates): every property holds for each, and for the
    // automatic choice on a schedule that alternates them.
    let first = b.byte();
    let pipeline = match first % 4 {
        0 => ContactPipeline::new().with_pair_search(PairSearch::Grid),
        1 => ContactPipeline::new().with_pair_search(PairSearch::Tracker),
        2 => ContactPipeline::new().with_alternating_search(1 + u32::from(b.byte() % 4)),
        _ => ContactPipeline::new(),
    };
    // The first byte's high bit: manifolds kept across frames (a tolerance
    // of 1 mm and 0.05 rad), whose contacts are not exact: then the
    // properties checked are those of any contact list (legal pairs, finite
    // and touching contacts, sorted, events the change of the set).
    let exact = first & 0x80 == 0;
    let pipeline = if exact {
        pipeline
    } else {
        let reuse = ManifoldReuse::new(1e-3, 0.05).expect("a valid tolerance");
        pipeline.with_manifolds(0.02).expect("a valid prediction").with_manifold_reuse(reuse)
    };
    let distance = [0.0, 0.05][usize::from(first & 0x40 != 0)];
    let pairs = ContactPipeline::new().with_broadphase_only(distance).expect("a valid distance");
    let mut w =
        World { scene: Scene::new(), pipeline, exact, pairs, distance, live: vec![], dead: vec![], meshes: vec![] };
    for _ in 0..MAX_OPS {
        if b.is_empty() {
            break;
        }
        w.step(&mut b);
        w.verify();
    }
}

fn groups(b: &mut Bytes) -> CollisionGroups {
    if b.chance(160) {
        CollisionGroups::default()
    } else {
        CollisionGroups::new(b.byte() as u32 & 3, b.byte() as u32 & 3)
    }
}

impl World {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            colliders: self
                .scene
                .iter()
                .map(|(h, c)| (h, *c.pose(), *c.aabb(), c.kind(), c.ccd(), c.user_data(), c.groups()))
                .collect(),
            trees: self.scene.tree_sizes(),
        }
    }

    fn pose(&self, b: &mut Bytes, wild: bool) -> Isometry {
        let t = Vector::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        let rot = if b.chance(96) {
            Rotation::identity()
        } else {
            let q = nalgebra::Quaternion::new(b.ordinary(), b.ordinary(), b.ordinary(), b.ordinary());
            if wild && b.chance(64) {
                Rotation::new_unchecked(q) // not normalised: rejected by boxes
            } else {
                Rotation::try_new(q, 1e-3).unwrap_or_else(Rotation::identity)
            }
        };
        Isometry::from_parts(t.into(), rot)
    }

    fn shape(&mut self, b: &mut Bytes, wild: bool) -> ColliderShape {
        let size = |b: &mut Bytes| if wild && b.chance(64) { b.any_f32() } else { b.size() * 0.5 };
        match b.byte() % 5 {
            0 => ColliderShape::Sphere { radius: size(b) },
            1 => ColliderShape::Cuboid { half_extents: Vector::new(size(b), size(b), size(b)) },
            2 => ColliderShape::Cuboid { half_extents: Vector::new(size(b), size(b), size(b)) },
            3 => ColliderShape::Capsule { half_height: size(b), radius: size(b) },
            _ => match self.meshes.len() {
                // A convex hull: a box's corners and a point off one face,
                // sized by the input (a flat or degenerate cloud is refused
                // by ConvexHull::try_new, which the narrowphase target fuzzes).
                0 => match hull(Vector::new(size(b), size(b), size(b))) {
                    Some(h) => ColliderShape::ConvexHull(h),
                    None => ColliderShape::Sphere { radius: size(b) },
                },
                n => ColliderShape::TriMesh(Arc::clone(&self.meshes[b.byte() as usize % n])),
            },
        }
    }

    /// The documented verdict of placing `shape` at `pose` for the collider
    /// `handle` (`None` on insertion): CCD on a mesh, then the pose
    /// rule of every shape, then the shape's own checks at the renormalised
    /// pose (the narrowphase constructors' own checks are fuzzed by the
    /// narrowphase target).
    fn expected(
        shape: &ColliderShape,
        pose: &Isometry,
        ccd: bool,
        handle: Option<ColliderHandle>,
    ) -> Result<(), SceneError> {
        if ccd && !shape.is_convex() {
            return Err(SceneError::ShapeNotConvex);
        }
        let pose = &stored_pose(pose).map_err(|error| SceneError::InvalidPose { handle, error })?;
        let c = Point::from(pose.translation.vector);
        let r = match shape {
            ColliderShape::Sphere { radius } => Sphere::try_new(c, *radius).map(|_| ()),
            // A box under a rotated pose is that rotated box (an OBB).
            ColliderShape::Cuboid { half_extents } if !rotation_is_identity(&pose.rotation) => {
                Obb::try_new(c, pose.rotation, *half_extents).map(|_| ())
            }
            ColliderShape::Cuboid { half_extents } => Aabb::try_from_center(c, *half_extents).and_then(|_| {
                if c.iter().chain(half_extents.iter()).all(|x| x.abs() <= MAX_COORDINATE) {
                    Ok(())
                } else {
                    Err(ShapeError::TooLarge("aabb centre or half-extents"))
                }
            }),
            ColliderShape::Capsule { half_height, radius } => {
                if !(half_height.is_finite() && *half_height >= 0.0) {
                    Err(ShapeError::NegativeExtent)
                } else if !unit(&pose.rotation) {
                    Err(ShapeError::InvalidRotation)
                } else {
                    let axis = pose.rotation * Vector::y() * *half_height;
                    Capsule::try_new(c - axis, c + axis, *radius).map(|_| ())
                }
            }
            // A hull's pose rule is the pose rule (its vertices are checked
            // when it is built).
            ColliderShape::ConvexHull(_) => Ok(()),
            ColliderShape::TriMesh(_) => {
                let q = pose.rotation.as_ref().coords;
                if !c.iter().chain(q.iter()).all(|x| x.is_finite()) {
                    Err(ShapeError::NonFinite("mesh pose"))
                } else if c.iter().any(|x| x.abs() > MAX_COORDINATE) {
                    Err(ShapeError::TooLarge("mesh pose"))
                } else if !unit(&pose.rotation) {
                    Err(ShapeError::InvalidRotation)
                } else {
                    Ok(())
                }
            }
            other => unreachable!("the fuzzer builds no {other:?}"),
        };
        r.map_err(SceneError::InvalidShape)
    }

    fn pick_live(&self, b: &mut Bytes) -> Option<ColliderHandle> {
        (!self.live.is_empty()).then(|| self.live[b.byte() as usize % self.live.len()])
    }

    fn pick_stale(&self, b: &mut Bytes) -> Option<ColliderHandle> {
        (!self.dead.is_empty()).then(|| self.dead[b.byte() as usize % self.dead.len()])
    }

    fn step(&mut self, b: &mut Bytes) {
        let wild = b.chance(48);
        match b.byte() % 16 {
            0..=3 => self.insert(b, wild),
            4 if b.chance(128) => self.set_groups(b),
            4 => self.remove(b),
            5..=7 => self.set_pose(b, wild),
            8 => self.set_shape(b, wild),
            9 => self.build_mesh(b, wild),
            10 | 11 => {
                if b.chance(16) {
                    let other = match self.pipeline.pair_search() {
                        PairSearch::Tracker => PairSearch::Grid,
                        PairSearch::Grid => PairSearch::Auto,
                        PairSearch::Auto => PairSearch::Tracker,
                    };
                    self.pipeline = self.pipeline.clone().with_pair_search(other);
                }
                self.pipeline_update()
            }
            12 => self.ray_queries(b, wild),
            13 => self.shape_queries(b, wild),
            14 => self.point_queries(b, wild),
            _ => self.clone_matches(b),
        }
    }

    fn insert(&mut self, b: &mut Bytes, wild: bool) {
        let shape = self.shape(b, wild);
        let pose = self.pose(b, wild);
        let mut desc = ColliderDesc::new(shape.clone(), pose).with_groups(groups(b)).with_user_data(b.u16() as u64);
        if b.chance(64) {
            desc = desc.fixed();
        }
        let ccd = b.chance(40);
        if ccd {
            desc = desc.with_ccd();
        }
        let want = Self::expected(&shape, &pose, ccd, None);
        let before = self.snapshot();
        match self.scene.insert(desc.clone()) {
            Ok(h) => {
                assert_eq!(want, Ok(()), "insert accepted {desc:?}");
                assert!(!self.live.contains(&h) && !self.dead.contains(&h), "handle {h:?} reissued");
                let c = self.scene.get(h).expect("just inserted");
                let stored = stored_pose(&pose).expect("accepted");
                assert_eq!((c.pose(), c.kind(), c.ccd(), c.user_data()), (&stored, desc.kind, ccd, desc.user_data));
                self.live.push(h);
            }
            Err(e) => {
                assert_eq!(Err(e), want, "insert verdict for {desc:?}");
                assert_eq!(self.snapshot(), before, "a rejected insert changed the scene");
            }
        }
    }

    fn remove(&mut self, b: &mut Bytes) {
        if b.chance(64) {
            if let Some(h) = self.pick_stale(b) {
                let before = self.snapshot();
                assert_eq!(self.scene.remove(h).err(), Some(SceneError::StaleHandle));
                assert!(self.scene.get(h).is_none());
                assert_eq!(self.snapshot(), before);
            }
            return;
        }
        let Some(h) = self.pick_live(b) else { return };
        let pose = *self.scene.get(h).expect("live").pose();
        let removed = self.scene.remove(h).expect("live handle");
        assert_eq!(removed.pose(), &pose);
        self.live.retain(|&x| x != h);
        self.dead.push(h);
    }

    /// New groups for a live collider (the pipeline's next update must
    /// follow them), or a stale handle rejected without a change.
    fn set_groups(&mut self, b: &mut Bytes) {
        let g = groups(b);
        if b.chance(64) {
            if let Some(h) = self.pick_stale(b) {
                let before = self.snapshot();
                assert_eq!(self.scene.set_groups(h, g), Err(SceneError::StaleHandle));
                assert_eq!(self.snapshot(), before);
                return;
            }
        }
        let Some(h) = self.pick_live(b) else { return };
        self.scene.set_groups(h, g).expect("live handle");
        assert_eq!(self.scene.get(h).expect("live").groups(), g);
    }

    fn set_pose(&mut self, b: &mut Bytes, wild: bool) {
        let teleport = b.chance(64);
        let pose = self.pose(b, wild);
        if b.chance(32) {
            if let Some(h) = self.pick_stale(b) {
                let before = self.snapshot();
                assert_eq!(self.scene.set_pose(h, pose), Err(SceneError::StaleHandle));
                assert_eq!(self.scene.teleport(h, pose), Err(SceneError::StaleHandle));
                assert_eq!(self.snapshot(), before);
                return;
            }
        }
        let Some(h) = self.pick_live(b) else { return };
        let shape = self.scene.get(h).expect("live").shape().clone();
        let want = Self::expected(&shape, &pose, false, Some(h));
        let before = self.snapshot();
        let got = if teleport { self.scene.teleport(h, pose) } else { self.scene.set_pose(h, pose) };
        assert_eq!(got, want, "set_pose verdict for {shape:?} at {pose:?}");
        if got.is_err() {
            assert_eq!(self.snapshot(), before, "a rejected set_pose changed the scene");
        } else {
            assert_eq!(self.scene.get(h).expect("live").pose(), &stored_pose(&pose).expect("accepted"));
        }
    }

    fn set_shape(&mut self, b: &mut Bytes, wild: bool) {
        let shape = self.shape(b, wild);
        if b.chance(32) {
            if let Some(h) = self.pick_stale(b) {
                assert_eq!(self.scene.set_shape(h, shape), Err(SceneError::StaleHandle));
                return;
            }
        }
        let Some(h) = self.pick_live(b) else { return };
        let c = self.scene.get(h).expect("live");
        let (pose, ccd) = (*c.pose(), c.ccd());
        let want = Self::expected(&shape, &pose, ccd, Some(h));
        let before = self.snapshot();
        let got = self.scene.set_shape(h, shape);
        assert_eq!(got, want, "set_shape verdict");
        if got.is_err() {
            assert_eq!(self.snapshot(), before, "a rejected set_shape changed the scene");
        }
    }

    fn build_mesh(&mut self, b: &mut Bytes, wild: bool) {
        let n = (b.byte() % 6) as usize;
        let vertices: Vec<Point> =
            (0..n).map(|_| Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild))).collect();
        let t = (b.byte() % 5) as usize;
        let indices: Vec<[u32; 3]> = (0..t).map(|_| [0, 1, 2].map(|_| (b.byte() % 7) as u32)).collect::<Vec<_>>();
        // The documented verdict: empty, then per triangle in order: an index
        // out of range, then a non-finite vertex, then one beyond MAX_COORDINATE.
        let mut want = if indices.is_empty() { Err(MeshError::Empty) } else { Ok(()) };
        if want.is_ok() {
            for (i, tri) in indices.iter().enumerate() {
                if tri.iter().any(|&k| k as usize >= n) {
                    want = Err(MeshError::IndexOutOfRange { triangle: i });
                    break;
                }
                if tri.iter().any(|&k| !vertices[k as usize].iter().all(|x| x.is_finite())) {
                    want = Err(MeshError::Shape { triangle: i, error: ShapeError::NonFinite("triangle vertex") });
                    break;
                }
                if tri.iter().any(|&k| vertices[k as usize].iter().any(|x| x.abs() > MAX_COORDINATE)) {
                    want = Err(MeshError::Shape { triangle: i, error: ShapeError::TooLarge("triangle vertex") });
                    break;
                }
            }
        }
        // Either build: the same verdicts, the same answers. Chosen from the
        // sizes, not from a new byte, so stored inputs replay as before.
        let build = if (n + t) % 2 == 1 { MeshBuild::FastRays } else { MeshBuild::FastBuild };
        match TriMesh::new_with(vertices, indices, build) {
            Ok(m) => {
                assert_eq!(want, Ok(()));
                assert_eq!(m.triangles().len(), m.indices().len());
                m.block_bvh().validate().unwrap_or_else(|e| panic!("mesh BVH: {e}"));
                self.meshes.push(Arc::new(m));
            }
            Err(e) => assert_eq!(Err(e), want, "TriMesh::new verdict"),
        }
    }

    fn pipeline_update(&mut self) {
        let previous: Vec<(ColliderHandle, ColliderHandle)> =
            self.pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        let events = self.pipeline.update(&mut self.scene).to_vec();
        let contacts = self.pipeline.contacts().to_vec();
        let all: Vec<(ColliderHandle, &Collider)> = self.scene.iter().collect();
        // Every reported contact is the exact contact of a legal pair.
        for p in &contacts {
            assert!(p.a < p.b, "contact pair not ordered");
            let (ca, cb) = (self.scene.get(p.a).expect("live"), self.scene.get(p.b).expect("live"));
            assert!(!(ca.kind() == BodyKind::Fixed && cb.kind() == BodyKind::Fixed), "static-static contact");
            assert!(ca.groups().interacts_with(cb.groups()), "contact between non-interacting groups");
            if !self.exact {
                let c = p.contact;
                let finite = c.point_a.iter().chain(c.point_b.iter()).chain(c.normal.iter()).all(|x| x.is_finite());
                assert!(finite && c.depth >= 0.0, "a kept contact is finite and touching: {c:?}");
                continue;
            }
            let exact = contact(ca.world_shape(), cb.world_shape());
            assert_eq!(
                exact.map(contact_bits),
                Some(contact_bits(p.contact)),
                "pipeline contact is not the exact contact"
            );
        }
        assert!(contacts.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)), "contacts not sorted");
        // Every touching pair whose boxes overlap is reported.
        for (i, &(ha, ca)) in all.iter().enumerate().filter(|_| self.exact) {
            for &(hb, cb) in &all[i + 1..] {
                let (a, b) = if ha < hb { ((ha, ca), (hb, cb)) } else { ((hb, cb), (ha, ca)) };
                if a.1.kind() == BodyKind::Fixed && b.1.kind() == BodyKind::Fixed {
                    continue;
                }
                if !a.1.groups().interacts_with(b.1.groups()) || !intersects_aabb_aabb(a.1.aabb(), b.1.aabb()) {
                    continue;
                }
                if contact(a.1.world_shape(), b.1.world_shape()).is_some() {
                    assert!(
                        contacts.iter().any(|p| (p.a, p.b) == (a.0, b.0)),
                        "pipeline missed the contact of {:?} and {:?}",
                        a.1.world_shape(),
                        b.1.world_shape()
                    );
                }
            }
        }
        // CCD impacts: a live convex CCD collider against another collider
        // its groups accept, at a toi in [0, 1], sorted by collider.
        for imp in self.pipeline.ccd_impacts() {
            let c = self.scene.get(imp.collider).expect("live CCD collider");
            let o = self.scene.get(imp.other).expect("live other collider");
            assert!(c.ccd(), "impact of a non-CCD collider");
            assert!(!matches!(c.world_shape(), WorldShape::TriMesh(..)), "CCD impact of a mesh");
            assert!(imp.other != imp.collider, "CCD impact with itself: {imp:?}");
            assert!(
                c.groups().interacts_with(o.groups()),
                "CCD impact {imp:?}: groups {:?} {:?}",
                c.groups(),
                o.groups()
            );
            assert!(
                (0.0..=1.0).contains(&imp.hit.toi),
                "CCD impact {imp:?} of {:?} on {:?}",
                c.world_shape(),
                o.world_shape()
            );
        }
        let order: Vec<ColliderHandle> = self.pipeline.ccd_impacts().iter().map(|i| i.collider).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "CCD impacts not sorted by collider");
        // Events: the change of the contact set.
        let now: Vec<(ColliderHandle, ColliderHandle)> = contacts.iter().map(|p| (p.a, p.b)).collect();
        let mut want: Vec<(bool, ColliderHandle, ColliderHandle)> = now
            .iter()
            .filter(|p| !previous.contains(p))
            .map(|p| (true, p.0, p.1))
            .chain(previous.iter().filter(|p| !now.contains(p)).map(|p| (false, p.0, p.1)))
            .collect();
        let mut got: Vec<(bool, ColliderHandle, ColliderHandle)> = events
            .iter()
            .map(|e| match e {
                ContactEvent::Started(p) => (true, p.a, p.b),
                ContactEvent::Stopped { a, b } => (false, *a, *b),
            })
            .collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "contact events are not the change of the contact set");
        // After the update no collider has a pending CCD motion: a second
        // update reports no impact and no event (with kept manifolds, carried
        // to the same poses through the bodies' frames, a depth of 0 may
        // round either side).
        let again = self.pipeline.update(&mut self.scene).to_vec();
        assert!(!self.exact || again.is_empty(), "a second update without motion changed contacts: {again:?}");
        assert!(self.pipeline.ccd_impacts().is_empty(), "CCD impact without motion");
        self.broadphase_only_update();
    }

    /// The broadphase-only pipeline against brute force by its documented
    /// rule, and its events against the change of its list.
    fn broadphase_only_update(&mut self) {
        let previous = self.pairs.candidate_pairs().to_vec();
        self.pairs.update(&mut self.scene);
        let grown = |c: &Collider| {
            let a = c.aabb();
            a.loosened_per_axis(
                &((a.min().coords.abs() + a.max().coords.abs()) * 1e-5 + Vector::repeat(self.distance * 0.5)),
            )
        };
        let touch = |a: &Aabb, b: &Aabb| (0..3).all(|k| a.min()[k] <= b.max()[k] && b.min()[k] <= a.max()[k]);
        let all: Vec<(ColliderHandle, &Collider)> = self.scene.iter().collect();
        let mut want = Vec::new();
        for (i, &(ha, ca)) in all.iter().enumerate() {
            for &(hb, cb) in &all[i + 1..] {
                if ca.pairs_with(cb) && ca.groups().interacts_with(cb.groups()) && touch(&grown(ca), &grown(cb)) {
                    want.push((ha.min(hb), ha.max(hb)));
                }
            }
        }
        want.sort_unstable();
        let listed = self.pairs.candidate_pairs().to_vec();
        assert_eq!(listed, want, "broadphase-only pairs are not brute force's");
        let mut got: Vec<(bool, ColliderHandle, ColliderHandle)> = self
            .pairs
            .candidate_events()
            .iter()
            .map(|e| match *e {
                CandidateEvent::Started { a, b } => (true, a, b),
                CandidateEvent::Stopped { a, b } => (false, a, b),
            })
            .collect();
        let mut changes: Vec<(bool, ColliderHandle, ColliderHandle)> = listed
            .iter()
            .filter(|p| previous.binary_search(p).is_err())
            .map(|p| (true, p.0, p.1))
            .chain(previous.iter().filter(|p| listed.binary_search(p).is_err()).map(|p| (false, p.0, p.1)))
            .collect();
        let key = |e: &(bool, ColliderHandle, ColliderHandle)| (e.1, e.2);
        assert!(got.windows(2).all(|w| key(&w[0]) < key(&w[1])), "broadphase-only events not in pair order");
        got.sort_unstable();
        changes.sort_unstable();
        assert_eq!(got, changes, "broadphase-only events are not the change of its list");
    }

    fn ray(&self, b: &mut Bytes, wild: bool) -> Option<Ray> {
        let o = Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        let d = Vector::new(b.ordinary(), b.ordinary(), b.ordinary());
        let max_toi = if b.chance(64) { f32::INFINITY } else { b.ordinary().abs() * 4.0 };
        Ray::try_new(o, d, max_toi).ok()
    }

    fn ray_queries(&mut self, b: &mut Bytes, wild: bool) {
        let mut rays: Vec<Ray> = (0..1 + b.byte() % 4).filter_map(|_| self.ray(b, wild)).collect();
        if b.chance(96) {
            // Parallel rays (a directional light's shadow rays): a packet
            // whose rays share their direction signs, with a zero component
            // of either sign now and then (+0 and -0 face opposite planes).
            if let Some(first) = rays.first().map(|r| *r.dir()) {
                let zero = b.byte() % 4;
                for r in &mut rays {
                    let mut d = first;
                    if zero < 3 {
                        d[zero as usize] = if b.chance(128) { 0.0 } else { -0.0 };
                    }
                    *r = Ray::try_new(*r.origin(), d, r.max_toi()).unwrap_or(*r);
                }
            }
        }
        let g = groups(b);
        let filter = QueryFilter { groups: g, ..QueryFilter::default() };
        let batch = self.scene.cast_rays(&rays, &filter);
        let occluded = self.scene.occluded(&rays, &filter);
        for ((ray, batch_hit), &blocked) in rays.iter().zip(&batch).zip(&occluded) {
            // Answers are compared only for origins within 1e15 of the origin:
            // beyond, every toi of a unit-scale direction overflows to +inf
            // and the box cull and the exact tests disagree about "hits at
            // infinity" (no panic is still required).
            if ray.origin().iter().any(|x| x.abs() > 1e15) {
                let _ = (self.scene.cast_ray_closest(ray, &filter), self.scene.cast_ray_any(ray, &filter));
                continue;
            }
            // Every exact hit, and whether the ray enters the collider's
            // tight box: the trees cull with boxes (fat ones for dynamic
            // colliders), so a hit must be reported when its box is entered,
            // and may be dropped only when the exact test hits outside the box
            // (rounding, e.g. at subnormal scale).
            let pre = PrecomputedRay::new(ray);
            let hits: Vec<(ColliderHandle, RayHit, bool)> = self
                .scene
                .iter()
                .filter(|(h, c)| filter.accepts(*h, c))
                .filter_map(|(h, c)| {
                    let entered = ray_aabb_interval(&pre, c.aabb()).is_some();
                    c.world_shape().cast_ray(ray).map(|hit| (h, hit, entered))
                })
                .collect();
            let min_toi =
                |it: &mut dyn Iterator<Item = f32>| it.fold(None, |m: Option<f32>, t| Some(m.map_or(t, |m| m.min(t))));
            let lower = min_toi(&mut hits.iter().map(|x| x.1.toi));
            let upper = min_toi(&mut hits.iter().filter(|x| x.2).map(|x| x.1.toi));
            let closest = self.scene.cast_ray_closest(ray, &filter);
            let describe = || -> Vec<String> {
                hits.iter()
                    .map(|(h, hit, entered)| {
                        let c = self.scene.get(*h).expect("live");
                        format!("{:?} {:?} box {:?} entered {entered} hit {hit:?}", c.kind(), c.world_shape(), c.aabb())
                    })
                    .collect()
            };
            match closest {
                Some(c) => {
                    let exact =
                        hits.iter().find(|(h, hit, _)| *h == c.collider && hit.toi.to_bits() == c.toi.to_bits());
                    assert!(exact.is_some(), "cast_ray_closest {c:?} is no collider's exact hit: {:#?}", describe());
                    assert!(
                        lower.is_some_and(|l| l <= c.toi),
                        "cast_ray_closest {c:?} below every hit: {:#?}",
                        describe()
                    );
                    assert!(
                        upper.is_none_or(|u| c.toi <= u),
                        "cast_ray_closest {c:?} missed an earlier hit for {ray:?}: {:#?}",
                        describe()
                    );
                }
                None => assert!(upper.is_none(), "cast_ray_closest missed for {ray:?}: {:#?}", describe()),
            }
            let bits = |h: &Option<SceneRayHit>| h.map(|h| (h.collider, h.toi.to_bits(), h.normal.map(f32::to_bits)));
            assert_eq!(bits(batch_hit), bits(&closest), "cast_rays differs from cast_ray_closest");
            let any = self.scene.cast_ray_any(ray, &filter);
            assert_eq!(blocked, any.is_some(), "occluded differs from cast_ray_any for {ray:?}");
            if let Some(a) = any {
                assert!(
                    hits.iter().any(|(h, _, _)| *h == a.collider),
                    "cast_ray_any reported a collider the ray misses"
                );
            } else {
                assert!(upper.is_none(), "cast_ray_any missed a hit inside a box");
            }
            let mut seen = Vec::new();
            let _ = self.scene.visit_ray_hits(ray, &filter, |hit| {
                seen.push((hit.collider, hit.toi.to_bits()));
                ControlFlow::Continue(())
            });
            seen.sort_unstable();
            let all: Vec<(ColliderHandle, u32)> = hits.iter().map(|(h, hit, _)| (*h, hit.toi.to_bits())).collect();
            for s in &seen {
                assert!(all.contains(s), "visit_ray_hits reported {s:?}, not an exact hit: {:#?}", describe());
            }
            for (h, hit, entered) in &hits {
                if *entered {
                    assert!(seen.contains(&(*h, hit.toi.to_bits())), "visit_ray_hits missed {h:?}: {:#?}", describe());
                }
            }
        }
    }

    fn shape_queries(&mut self, b: &mut Bytes, wild: bool) {
        let c = Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        let h = Vector::new(b.size(), b.size(), b.size());
        let filter = QueryFilter { groups: groups(b), ..QueryFilter::default() };
        if let Ok(a) = Aabb::try_from_center(c, h) {
            let got = self.scene.overlaps_aabb(&a, &filter);
            self.check_culled_query(&got, &filter, &a, |shape| probe_aabb(&a, shape), "overlaps_aabb");
        }
        if let Ok(s) = Sphere::try_new(c, h.x) {
            let got = self.scene.overlaps_sphere(&s, &filter);
            self.check_culled_query(&got, &filter, &s.aabb(), |shape| probe_sphere(&s, shape), "overlaps_sphere");
            let m = Vector::new(b.ordinary(), b.ordinary(), b.ordinary());
            let swept = s.aabb().merged(&Sphere::new(s.center() + m, s.radius()).aabb());
            let all: Vec<(ColliderHandle, Option<SweepHit>, bool)> = self
                .scene
                .iter()
                .filter(|(hd, col)| filter.accepts(*hd, col))
                .map(|(hd, col)| (hd, col.world_shape().cast_sphere(&s, &m), intersects_aabb_aabb(col.aabb(), &swept)))
                .collect();
            let got = self.scene.cast_sphere(&s, &m, &filter);
            // The answer is the earliest hit among the candidates: at most the
            // earliest hit of a collider whose box meets the swept box, at least
            // the earliest hit of any collider.
            let min_toi =
                |it: &mut dyn Iterator<Item = f32>| it.fold(None, |m: Option<f32>, t| Some(m.map_or(t, |m| m.min(t))));
            let lower = min_toi(&mut all.iter().filter_map(|x| x.1.map(|h| h.toi)));
            let upper = min_toi(&mut all.iter().filter(|x| x.2).filter_map(|x| x.1.map(|h| h.toi)));
            match got {
                Some(g) => {
                    let exact = all.iter().find(|x| x.0 == g.collider).and_then(|x| x.1);
                    let bits = |h: SweepHit| {
                        (
                            h.toi.to_bits(),
                            contact_bits(Contact { point_a: h.point, point_b: h.point, normal: h.normal, depth: 0.0 }),
                        )
                    };
                    assert_eq!(exact.map(bits), Some(bits(g.hit)), "cast_sphere hit is not the collider's exact sweep");
                    assert!(lower.is_some_and(|l| l <= g.hit.toi), "cast_sphere {g:?} below every hit");
                    assert!(upper.is_none_or(|u| g.hit.toi <= u), "cast_sphere missed an earlier hit");
                }
                None => assert!(upper.is_none(), "cast_sphere missed a hit inside the swept box"),
            }
        }
        let rot =
            Rotation::try_new(nalgebra::Quaternion::new(b.ordinary(), b.ordinary(), b.ordinary(), b.ordinary()), 1e-3)
                .unwrap_or_else(Rotation::identity);
        if let Ok(o) = Obb::try_new(c, rot, h) {
            let got = self.scene.overlaps_obb(&o, &filter);
            self.check_culled_query(&got, &filter, &o.aabb(), |shape| probe_obb(&o, shape), "overlaps_obb");
        }
    }

    /// A culled query's answer `got` (sorted handles): every collider in it
    /// passes the filter and the exact test; every collider that passes the
    /// filter and the exact test and whose tight box meets `cull` is in it
    /// (box culling is allowed to drop shapes whose exact test is true only
    /// through rounding outside their box, never more).
    fn check_culled_query(
        &self,
        got: &[ColliderHandle],
        filter: &QueryFilter,
        cull: &Aabb,
        exact: impl Fn(&WorldShape) -> bool,
        what: &str,
    ) {
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{what}: not sorted and unique");
        for (h, c) in self.scene.iter() {
            let pass = filter.accepts(h, c) && exact(c.world_shape());
            let listed = got.binary_search(&h).is_ok();
            if listed {
                assert!(pass, "{what}: reported {h:?} ({:?}), which fails the filter or exact test", c.world_shape());
            } else if pass && intersects_aabb_aabb(c.aabb(), cull) {
                panic!("{what}: missed {h:?} ({:?}, box {:?}) against {cull:?}", c.world_shape(), c.aabb());
            }
        }
    }

    fn point_queries(&mut self, b: &mut Bytes, wild: bool) {
        let p = Point::new(b.f32_or_wild(wild), b.f32_or_wild(wild), b.f32_or_wild(wild));
        let max_distance = b.size() * 4.0;
        let filter = QueryFilter::default();
        let got = self.scene.colliders_containing_point(&p, &filter);
        if !finite(&p) {
            assert!(got.is_empty(), "contains_point of a non-finite point");
            return;
        }
        let probe = Aabb::new(p, p);
        self.check_culled_query(&got, &filter, &probe, |shape| shape.contains_point(&p), "contains_point");
        let got = self.scene.closest_point(&p, max_distance, &filter);
        let Ok(cull) = Aabb::try_from_center(p, Vector::repeat(max_distance)) else { return };
        let mut best: Option<(ColliderHandle, Point, f32)> = None;
        for (h, c) in self.scene.iter().filter(|(h, c)| filter.accepts(*h, c)) {
            let q = c.world_shape().closest_point(&p);
            let d = (q - p).norm();
            let candidate = intersects_aabb_aabb(c.aabb(), &cull);
            if candidate && d <= max_distance && best.is_none_or(|(bh, _, bd)| d < bd || (d == bd && h < bh)) {
                best = Some((h, q, d));
            }
        }
        match (got, best) {
            (Some(g), Some(w)) => {
                let shape = |h: ColliderHandle| self.scene.get(h).map(|c| (c.world_shape().clone(), *c.aabb()));
                assert!(
                    g.distance <= w.2,
                    "closest_point({p:?}, {max_distance}) {g:?} {:?} is farther than {w:?} {:?}",
                    shape(g.collider),
                    shape(w.0)
                );
                let c = self.scene.get(g.collider).expect("live");
                assert_eq!(
                    c.world_shape().closest_point(&p),
                    g.point,
                    "closest_point is not the collider's closest point"
                );
            }
            (None, Some(w)) => panic!("closest_point missed {w:?}"),
            (Some(g), None) => assert!(g.distance <= max_distance, "closest_point beyond max_distance"),
            (None, None) => {}
        }
    }

    fn clone_matches(&mut self, b: &mut Bytes) {
        let copy = self.scene.clone();
        let rays: Vec<Ray> = (0..8).filter_map(|_| self.ray(b, false)).collect();
        let f = QueryFilter::default();
        let bits = |hits: Vec<Option<SceneRayHit>>| -> Vec<Option<(ColliderHandle, u32, [u32; 3])>> {
            hits.iter().map(|h| h.map(|h| (h.collider, h.toi.to_bits(), h.normal.map(f32::to_bits).into()))).collect()
        };
        assert_eq!(
            bits(copy.cast_rays(&rays, &f)),
            bits(self.scene.cast_rays(&rays, &f)),
            "a clone answers differently"
        );
        let (mut p1, mut p2) = (self.pipeline.clone(), self.pipeline.clone());
        let (mut s1, mut s2) = (self.scene.clone(), copy);
        let (e1, e2) = (p1.update(&mut s1).to_vec(), p2.update(&mut s2).to_vec());
        assert_eq!(events_bits(&e1), events_bits(&e2), "a clone's pipeline differs");
    }

    fn verify(&self) {
        self.scene.validate().unwrap_or_else(|e| panic!("scene: {e}"));
        assert_eq!(self.scene.len(), self.live.len());
        let sizes = self.scene.tree_sizes();
        assert_eq!(sizes.statics + sizes.dynamics, self.live.len());
        for &h in &self.live {
            let c = self.scene.get(h).expect("live handle");
            assert_eq!(c.aabb(), &c.world_shape().aabb(), "stored box is not the shape's box");
        }
        for &h in &self.dead {
            assert!(self.scene.get(h).is_none(), "stale handle {h:?} still resolves");
        }
    }
}

/// Events as comparable bit patterns (NaN fields equal themselves).
fn events_bits(events: &[ContactEvent]) -> Vec<(bool, ColliderHandle, ColliderHandle, [u32; 10])> {
    events
        .iter()
        .map(|e| match e {
            ContactEvent::Started(p) => (true, p.a, p.b, contact_bits(p.contact)),
            ContactEvent::Stopped { a, b } => (false, *a, *b, [0; 10]),
        })
        .collect()
}

/// A contact's bit patterns, so NaN fields compare equal to themselves.
fn contact_bits(c: Contact) -> [u32; 10] {
    let v = [c.point_a.coords, c.point_b.coords, c.normal.into_inner()];
    let mut out = [c.depth.to_bits(); 10];
    for (i, x) in v.iter().flat_map(|v| v.iter()).enumerate() {
        out[i] = x.to_bits();
    }
    out
}

fn finite(p: &Point) -> bool {
    p.iter().all(|x| x.is_finite())
}

/// The exact overlap of a box probe with a placed shape (the scene's
/// documented tests: a box is an oriented box with identity rotation; a mesh
/// is tested triangle by triangle in the probe's frame).
/// The identity quaternion exactly (`w = ±1`): a box collider stays axis-aligned.
fn rotation_is_identity(rotation: &Rotation) -> bool {
    let q = rotation.as_ref();
    q.i == 0.0 && q.j == 0.0 && q.k == 0.0 && q.w.abs() == 1.0
}

fn probe_aabb(a: &Aabb, shape: &WorldShape) -> bool {
    match shape {
        WorldShape::Sphere(s) => intersects_sphere_aabb(s, a),
        WorldShape::Aabb(b) => intersects_aabb_aabb(a, b),
        WorldShape::Obb(o) => intersects_aabb_obb(a, o),
        WorldShape::Capsule(c) => intersects_capsule_aabb(c, a),
        WorldShape::TriMesh(..) => probe_obb(&Obb::from_aabb(a), shape),
        hull => probe_hull(a, hull),
    }
}

/// A placed hull as a support map: the farthest of its placed vertices, by
/// a scan of them all.
struct HullVertices<'a>(&'a ConvexHull, &'a Isometry);

impl SupportMap for HullVertices<'_> {
    fn support(&self, dir: &Vector) -> Point {
        let placed = self.0.vertices().iter().map(|v| self.1.transform_point(v));
        placed.max_by(|p, q| p.coords.dot(dir).total_cmp(&q.coords.dot(dir))).expect("a hull has vertices")
    }
}

/// GJK's overlap of a probe with a placed hull (its vertices scanned).
fn probe_hull(probe: &impl SupportMap, shape: &WorldShape) -> bool {
    match shape {
        WorldShape::ConvexHull(hull, pose) => intersects_convex(probe, &HullVertices(hull, pose)),
        other => unreachable!("the fuzzer builds no {other:?}"),
    }
}

/// The pose rule of every collider: a finite translation within
/// `MAX_COORDINATE`, a finite quaternion with `|q|^2` within
/// `POSE_ROTATION_TOLERANCE` of 1, stored renormalised.
fn stored_pose(pose: &Isometry) -> Result<Isometry, PoseError> {
    let t = pose.translation.vector;
    if !t.iter().all(|x| x.is_finite()) {
        return Err(PoseError::NonFiniteTranslation);
    }
    if t.iter().any(|x| x.abs() > MAX_COORDINATE) {
        return Err(PoseError::TranslationTooLarge);
    }
    let q = pose.rotation.as_ref().coords;
    if !q.iter().all(|x| x.is_finite()) || (q.norm_squared() - 1.0).abs() > POSE_ROTATION_TOLERANCE {
        return Err(PoseError::InvalidRotation);
    }
    Ok(Isometry::from_parts(pose.translation, renormalized_rotation(&pose.rotation)))
}

/// A rotation the scene accepts: finite, `|q|^2` within `1e-3` of 1.
fn unit(r: &nalgebra::UnitQuaternion<f32>) -> bool {
    let q = r.as_ref().coords;
    q.iter().all(|x| x.is_finite()) && (q.norm_squared() - 1.0).abs() <= 1e-3
}

fn probe_sphere(s: &Sphere, shape: &WorldShape) -> bool {
    match shape {
        WorldShape::Sphere(t) => intersects_sphere_sphere(s, t),
        WorldShape::Aabb(a) => intersects_sphere_aabb(s, a),
        WorldShape::Obb(o) => intersects_sphere_obb(s, o),
        WorldShape::Capsule(c) => intersects_sphere_capsule(s, c),
        WorldShape::TriMesh(m, pose) => Sphere::try_new(pose.inverse_transform_point(s.center()), s.radius())
            .is_ok_and(|local| m.triangles().collect::<Vec<_>>().iter().any(|t| intersects_sphere_triangle(&local, t))),
        hull => probe_hull(s, hull),
    }
}

fn probe_obb(o: &Obb, shape: &WorldShape) -> bool {
    match shape {
        WorldShape::Sphere(s) => intersects_sphere_obb(s, o),
        WorldShape::Aabb(a) => intersects_aabb_obb(a, o),
        WorldShape::Obb(p) => intersects_obb_obb(o, p),
        WorldShape::Capsule(c) => intersects_capsule_obb(c, o),
        WorldShape::TriMesh(m, pose) => {
            let local = Obb::try_new(
                pose.inverse_transform_point(o.center()),
                pose.rotation.inverse() * o.rotation(),
                *o.half_extents(),
            );
            local.is_ok_and(|local| {
                let h = *local.half_extents();
                let bx = Aabb::new(Point::from(-h), Point::from(h));
                // A triangle touches the box only if its box (mesh frame, exact)
                // touches the box's: a necessary condition that holds at any
                // scale, where the test in the box's frame does not (a vertex
                // 4e9 from the mesh origin lands hundreds of units off once
                // turned into that frame, and the test then sees a sliver
                // reach a box its real box is 1.5 units clear of).
                let near = local.aabb();
                m.triangles().collect::<Vec<_>>().iter().any(|t| {
                    let [a, b, c] = t.vertices().map(|v| Point::from(local.to_local(&v)));
                    intersects_aabb_aabb(&t.aabb(), &near)
                        && Triangle::try_new(a, b, c).is_ok_and(|lt| intersects_aabb_triangle(&bx, &lt))
                })
            })
        }
        hull => probe_hull(o, hull),
    }
}
