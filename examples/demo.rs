//! proxima's main demo: a pile of spheres and rotated boxes (with `--hulls`,
//! one body in sixteen a convex hull, a shared rock; with `--compounds`,
//! another body in sixteen a compound, a shared hammer of a box handle, a
//! sphere head and a capsule crosspiece) settling in a
//! container (the integrator is written here; proxima provides the pairs and
//! contacts), bullets fired through thin walls with continuous collision, and
//! a camera ray-casting the scene every frame. At the end: a summary table and
//! a PNG of the final scene rendered by proxima's ray caster.
//!
//! ```text
//! cargo run --release --example demo -- [--bodies N] [--frames F] [--bullets B] [--threads T]
//!                                        [--width W] [--height H] [--out PATH] [--manifolds] [--ci]
//!                                        [--repeat P] [--grid | --tracker] [--hulls] [--compounds]
//! ```
//! `--threads T` (default 1) runs `ContactPipeline::update_parallel` on a
//! pool of `T` threads instead of `update` on the calling thread.
//! `--ci` runs a reduced scene and checks the invariants: no bullet tunnels,
//! and the final frame's contact pairs equal brute force over all pairs.
//! `--repeat P` records every frame's poses and, after the run, replays them
//! `P` times through a clone of the first frame's scene and a fresh pipeline
//! (`set_pose` for every pose, then the pipeline's update), printing the
//! broadphase's mean over the frames of each frame's fastest replay: a figure
//! for A/B comparisons that a busy machine disturbs less than one run's mean.
//! A replay figure: the broadphase gets the same boxes as in the run, but
//! nothing runs between two updates but the poses (no contact resolution or
//! rays to evict its tables), and stopped bullets are moved by `set_pose`.
//! The poses take ~36 bytes per collider and frame (~170 MB for the default
//! run).
//! The pipeline picks its pair search itself (`PairSearch::Auto`, the
//! default); `--grid` fixes the grid search (`PairSearch::Grid`: every pair
//! again each frame) and `--tracker` the pair tracker, for comparing them.
//! `--manifolds` runs the pipeline with contact manifolds (prediction 0.02,
//! what a solver consumes) instead of single contacts. Either way the end
//! prints the narrowphase cost per candidate pair, and times the final
//! frame's candidate pairs (boxes overlapping, one thread; the pairs of
//! spheres, boxes and hulls) through `contact_manifolds` and through parry3d's
//! manifold dispatcher.

#[path = "support/render.rs"]
mod render;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use nalgebra::Translation3;
use proxima::narrowphase::{ConvexHull, Isometry, Point, Real, Rotation, Vector};
use proxima::scene::*;

struct Options {
    bodies: usize,
    frames: usize,
    bullets: usize,
    width: usize,
    height: usize,
    out: std::path::PathBuf,
    manifolds: bool,
    search: PairSearch,
    ci: bool,
    threads: usize,
    repeat: usize,
    hulls: bool,
    compounds: bool,
}

impl Options {
    fn parse() -> Result<Self, String> {
        let mut o = Options {
            bodies: 20_000,
            frames: 240,
            bullets: 64,
            width: 960,
            height: 540,
            out: "target/proxima-demo.png".into(),
            manifolds: false,
            search: PairSearch::Auto,
            ci: false,
            threads: 1,
            repeat: 0,
            hulls: false,
            compounds: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut value = || args.next().ok_or(format!("{a} needs a value"));
            match a.as_str() {
                "--bodies" => o.bodies = value()?.parse().map_err(|e| format!("--bodies: {e}"))?,
                "--frames" => o.frames = value()?.parse().map_err(|e| format!("--frames: {e}"))?,
                "--bullets" => o.bullets = value()?.parse().map_err(|e| format!("--bullets: {e}"))?,
                "--width" => o.width = value()?.parse().map_err(|e| format!("--width: {e}"))?,
                "--height" => o.height = value()?.parse().map_err(|e| format!("--height: {e}"))?,
                "--out" => o.out = value()?.into(),
                "--manifolds" => o.manifolds = true,
                "--grid" => o.search = PairSearch::Grid,
                "--tracker" => o.search = PairSearch::Tracker,
                "--hulls" => o.hulls = true,
                "--compounds" => o.compounds = true,
                "--repeat" => o.repeat = value()?.parse().map_err(|e| format!("--repeat: {e}"))?,
                "--threads" => {
                    o.threads = value()?.parse().map_err(|e| format!("--threads: {e}"))?;
                    if o.threads > 1 && !cfg!(feature = "parallel") {
                        return Err("--threads above 1 needs the parallel feature".into());
                    }
                }
                "--ci" => {
                    o.ci = true;
                    (o.bodies, o.frames, o.bullets, o.width, o.height) = (2_000, 90, 16, 320, 180);
                }
                "-h" | "--help" => return Err(
                    "usage: demo [--bodies N] [--frames F] [--bullets B] [--threads T] [--width W] [--height H] [--out PATH] [--manifolds] [--ci] [--repeat P] [--grid | --tracker] [--hulls] [--compounds]"
                        .into(),
                ),
                other => return Err(format!("unknown argument {other}")),
            }
        }
        Ok(o)
    }
}

const DT: Real = 1.0 / 60.0;
const GRAVITY: Real = -9.81;
const STATIC: u64 = u64::MAX;
const BULLET_BIT: u64 = 1 << 62;

/// A body of the pile: the state the integrator owns.
struct Body {
    handle: ColliderHandle,
    position: Vector,
    rotation: Rotation,
    velocity: Vector,
}

/// A bullet: fired at 600 m/s (10 m per frame) at a 10 cm thick wall.
struct Bullet {
    handle: ColliderHandle,
    position: Vector,
    velocity: Vector,
    stopped: bool,
}

/// The bullet range's wall: `WALL_GAP` beyond the container's +x wall.
const WALL_GAP: Real = 12.0;
const WALL_HALF_THICKNESS: Real = 0.05;

fn main() {
    let opts = match Options::parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut scene = Scene::new();
    let half = build_container(&mut scene, opts.bodies);
    let mut bodies = spawn_pile(&mut scene, opts.bodies, half, &opts);
    let mut bullets = spawn_bullets(&mut scene, opts.bullets, half + WALL_GAP);

    let camera =
        // Above the container's corner, looking down into the pile; the bullet
        // range's wall stands beyond the +x side.
        render::Camera::look_at(
            Point::new(half * 0.9 + 6.0, half * 1.5 + 8.0, half * 1.6 + 8.0),
            Point::new(half * 0.2 + 3.0, 0.0, 0.0),
            64.0,
        );
    let preview_rays = camera.rays(opts.width / 8, opts.height / 8, 1e4);

    let mut pipeline = new_pipeline(&opts);
    // The pipeline's pool: with one thread, `update` on this thread; with
    // more, this thread is one of them. It then stays in it, so the ray
    // casts, which run on the pool of the thread that calls them, go to a
    // pool of every core.
    let pool = match opts.threads {
        0 | 1 => rayon::ThreadPoolBuilder::new().num_threads(1).build(),
        n => rayon::ThreadPoolBuilder::new().num_threads(n).use_current_thread().build(),
    }
    .expect("thread pool");
    let every_core = (opts.threads > 1).then(|| rayon::ThreadPoolBuilder::new().build().expect("thread pool"));
    let mut totals = Totals::default();
    // With `--repeat`: the scene before the first frame and each frame's poses.
    let first_scene = (opts.repeat > 0).then(|| scene.clone());
    let mut recorded: Vec<Vec<(ColliderHandle, Isometry)>> = Vec::new();
    let bar = ProgressBar::new(opts.frames as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} frame {pos}/{len} [{bar:40}] {elapsed_precise} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    for frame in 0..opts.frames {
        // `set_pose` places each shape and keeps the scene's own query tree
        // (a DynamicTree) up to date: work a physics step pays besides the
        // pipeline's broadphase.
        let t = Instant::now();
        integrate(&mut scene, &mut bodies, &mut bullets, frame);
        totals.poses += t.elapsed();
        if opts.repeat > 0 {
            let handles = bodies.iter().map(|b| b.handle).chain(bullets.iter().map(|b| b.handle));
            recorded.push(handles.map(|h| (h, *scene.get(h).expect("live collider").pose())).collect());
        }
        update_pipeline(&mut pipeline, &mut scene, &pool);
        resolve_contacts(&scene, &pipeline, &mut bodies);
        stop_bullets(&mut scene, &pipeline, &mut bullets);
        let t = Instant::now();
        let hits = on_every_core(every_core.as_ref(), || scene.cast_rays(&preview_rays, &QueryFilter::default()));
        let ray_time = t.elapsed();
        totals.add(pipeline.stats(), ray_time, preview_rays.len(), hits.iter().flatten().count());
        bar.set_message(format!("{} contacts", pipeline.stats().contacts));
        bar.inc(1);
    }
    bar.finish_and_clear();

    let wall_x = half + WALL_GAP;
    let tunnelled = bullets.iter().filter(|b| b.position.x > wall_x + WALL_HALF_THICKNESS).count();
    let stopped = bullets.iter().filter(|b| b.stopped).count();

    // The picture: primary rays plus shadow rays, rendered by proxima.
    let t = Instant::now();
    let rays = camera.rays(opts.width, opts.height, 1e4);
    let hits = on_every_core(every_core.as_ref(), || scene.cast_rays(&rays, &QueryFilter::default()));
    let light = Vector::new(-0.4, 1.0, 0.3).normalize();
    let rgb = on_every_core(every_core.as_ref(), || {
        render::shade(&scene, &rays, &hits, &light, |h| color_of(&scene, h.collider))
    });
    let render_time = t.elapsed();
    if let Some(dir) = opts.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let saved = render::write_png(&opts.out, opts.width, opts.height, &rgb);

    let n = opts.frames.max(1) as f64;
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / n;
    println!(
        "proxima demo: {} bodies, {} static colliders, {} bullets, {} frames, pipeline on {} thread{} ({:?} search)",
        bodies.len(),
        scene.tree_sizes().statics,
        bullets.len(),
        opts.frames,
        opts.threads.max(1),
        if opts.threads > 1 { "s" } else { "" },
        opts.search
    );
    println!("| per frame (mean)       | value        |");
    println!("|------------------------|--------------|");
    println!("| set_pose (all bodies)  | {:>9.3} ms |", ms(totals.poses));
    println!("| broadphase             | {:>9.3} ms |", ms(totals.broadphase));
    println!("| narrowphase            | {:>9.3} ms |", ms(totals.narrowphase));
    println!("| CCD sweeps             | {:>9.3} ms |", ms(totals.ccd));
    println!("| camera rays ({:>6})   | {:>9.3} ms |", preview_rays.len(), ms(totals.rays));
    println!("| candidate pairs        | {:>12.0} |", totals.candidates as f64 / n);
    println!(
        "| narrowphase / candidate| {:>9.1} ns |",
        totals.narrowphase.as_secs_f64() * 1e9 / totals.candidates.max(1) as f64
    );
    println!("| contacts               | {:>12.0} |", totals.contacts as f64 / n);
    println!("| ray hit rate           | {:>11.1}% |", 100.0 * totals.ray_hits as f64 / totals.rays_cast.max(1) as f64);
    println!("| bullets stopped by CCD | {:>12} |", stopped);
    println!("| tunnelled bullets      | {:>12} |", tunnelled);
    println!(
        "final render: {}x{} primary + shadow rays in {:.1} ms ({:.2} Mrays/s primary)",
        opts.width,
        opts.height,
        render_time.as_secs_f64() * 1e3,
        rays.len() as f64 / render_time.as_secs_f64() / 1e6
    );
    match saved {
        Ok(()) => println!("picture: {}", opts.out.display()),
        Err(e) => eprintln!("could not write {}: {e}", opts.out.display()),
    }

    compare_manifolds(&scene);
    if let Some(first) = first_scene {
        let fastest = replay_broadphase(&first, &recorded, &opts, &pool);
        println!("broadphase replayed {} times: {fastest:.3} ms per frame (mean of each frame's fastest)", opts.repeat);
    }

    if opts.ci {
        assert_eq!(tunnelled, 0, "a bullet tunnelled through the wall");
        assert_eq!(stopped, bullets.len(), "every bullet must be stopped by the wall");
        let ours: BTreeSet<_> = pipeline.contacts().iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(ours, brute_force_pairs(&scene), "final pair set differs from brute force");
        println!("ci checks passed: 0 tunnelled, final pair set equals brute force ({} pairs)", ours.len());
    }
}

#[derive(Default)]
struct Totals {
    poses: Duration,
    broadphase: Duration,
    narrowphase: Duration,
    ccd: Duration,
    rays: Duration,
    candidates: usize,
    contacts: usize,
    rays_cast: usize,
    ray_hits: usize,
}

impl Totals {
    fn add(&mut self, s: &FrameStats, rays: Duration, cast: usize, hits: usize) {
        self.broadphase += s.broadphase;
        self.narrowphase += s.narrowphase;
        self.ccd += s.ccd;
        self.rays += rays;
        self.candidates += s.candidate_pairs;
        self.contacts += s.contacts;
        self.rays_cast += cast;
        self.ray_hits += hits;
    }
}

/// A floor, four walls, and the bullet range's thin wall. Returns the
/// container's half-width.
fn build_container(scene: &mut Scene, bodies: usize) -> Real {
    let per_layer = (bodies as Real / 12.0).max(16.0);
    let half = (per_layer.sqrt() * 1.25 * 0.5).ceil() + 1.0;
    let fixed = |scene: &mut Scene, h: Vector, at: Vector| {
        let desc =
            ColliderDesc::new(ColliderShape::Cuboid { half_extents: h }, Isometry::translation(at.x, at.y, at.z));
        scene.insert(desc.fixed().with_user_data(STATIC)).expect("valid wall");
    };
    fixed(scene, Vector::new(half + 1.0, 0.5, half + 1.0), Vector::new(0.0, -0.5, 0.0));
    // Walls a little higher than the settled pile (about one body per unit volume).
    let wall_h = 0.75 * bodies as Real / (2.0 * half).powi(2) + 1.0;
    for (h, at) in [
        (Vector::new(0.5, wall_h, half), Vector::new(-half - 0.5, wall_h, 0.0)),
        (Vector::new(0.5, wall_h, half), Vector::new(half + 0.5, wall_h, 0.0)),
        (Vector::new(half, wall_h, 0.5), Vector::new(0.0, wall_h, -half - 0.5)),
        (Vector::new(half, wall_h, 0.5), Vector::new(0.0, wall_h, half + 0.5)),
    ] {
        fixed(scene, h, at);
    }
    fixed(scene, Vector::new(WALL_HALF_THICKNESS, 6.0, 10.0), Vector::new(half + WALL_GAP, 6.0, 0.0));
    half
}

/// Spheres (r = 0.5) and rotated boxes (half-extent 0.4) on a grid above
/// the floor; with `--hulls` and `--compounds`, rocks and hammers among them.
fn spawn_pile(scene: &mut Scene, n: usize, half: Real, opts: &Options) -> Vec<Body> {
    let mut rng = proxima_test_support::rng(2026);
    let rock = Arc::new(rock_hull());
    let hammer = Arc::new(hammer());
    let spacing = 1.25;
    let per_row = ((2.0 * half - 2.0) / spacing).floor().max(1.0) as usize;
    (0..n)
        .map(|i| {
            let (x, z, y) = (i % per_row, (i / per_row) % per_row, i / (per_row * per_row));
            let position = Vector::new(
                -half + 1.0 + x as Real * spacing + 0.5,
                1.0 + y as Real * spacing,
                -half + 1.0 + z as Real * spacing + 0.5,
            );
            let rotation = proxima_test_support::gen::rotation(&mut rng);
            let shape = if opts.hulls && i % 16 == 7 {
                ColliderShape::ConvexHull(Arc::clone(&rock))
            } else if opts.compounds && i % 16 == 11 {
                ColliderShape::Compound(Arc::clone(&hammer))
            } else if i % 2 == 0 {
                ColliderShape::Sphere { radius: 0.5 }
            } else {
                ColliderShape::Cuboid { half_extents: Vector::repeat(0.4) }
            };
            let pose = Isometry::from_parts(Translation3::from(position), rotation);
            let handle = scene.insert(ColliderDesc::new(shape, pose).with_user_data(i as u64)).expect("valid body");
            Body { handle, position, rotation, velocity: Vector::zeros() }
        })
        .collect()
}

/// A rock: the hull of a cube's corners pulled in and the six face
/// centres pushed out unevenly (14 vertices, about 0.9 across).
fn rock_hull() -> ConvexHull {
    let mut points = Vec::new();
    for c in 0..8 {
        let s = |bit: usize| if c & (1 << bit) == 0 { -0.3 } else { 0.3 };
        points.push(Point::new(s(0), s(1) * 0.8, s(2)));
    }
    for (axis, reach) in [(0, 0.45), (1, 0.35), (2, 0.42)] {
        for sign in [-1.0, 1.0] {
            let mut p = Point::origin();
            p[axis] = sign * reach;
            points.push(p);
        }
    }
    ConvexHull::try_new(&points).expect("a solid point cloud")
}

/// A hammer, about 1.1 long: a box handle along x, a sphere head at its +x
/// end and a capsule crosspiece through the head along z (three children
/// of three kinds, overlapping at the head).
fn hammer() -> Compound {
    Compound::try_new(vec![
        (Isometry::translation(-0.15, 0.0, 0.0), ColliderShape::Cuboid { half_extents: Vector::new(0.4, 0.08, 0.08) }),
        (Isometry::translation(0.3, 0.0, 0.0), ColliderShape::Sphere { radius: 0.22 }),
        (
            Isometry::from_parts(
                Translation3::new(0.3, 0.0, 0.0),
                Rotation::from_euler_angles(std::f32::consts::FRAC_PI_2, 0.0, 0.0),
            ),
            ColliderShape::Capsule { half_height: 0.25, radius: 0.12 },
        ),
    ])
    .expect("convex children under finite poses")
}

fn spawn_bullets(scene: &mut Scene, n: usize, wall_x: Real) -> Vec<Bullet> {
    (0..n)
        .map(|i| {
            let position =
                Vector::new(wall_x - WALL_GAP + 1.5, 1.0 + (i % 8) as Real * 1.3, -8.0 + (i / 8 % 8) as Real * 2.1);
            let desc = ColliderDesc::new(
                ColliderShape::Sphere { radius: 0.05 },
                Isometry::translation(position.x, position.y, position.z),
            )
            .with_ccd()
            .with_user_data(BULLET_BIT | i as u64)
            .with_groups(CollisionGroups { memberships: 2, filter: 1 });
            let handle = scene.insert(desc).expect("valid bullet");
            Bullet { handle, position, velocity: Vector::new(600.0, 0.0, 0.0), stopped: false }
        })
        .collect()
}

/// `f` on `pool` when there is one (this thread is in the pipeline's pool),
/// else on this thread's default, the global pool.
fn on_every_core<R: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// One pipeline update: `update_parallel` on `pool` when it has several
/// threads (and the `parallel` feature is on), `update` otherwise.
fn update_pipeline(pipeline: &mut ContactPipeline, scene: &mut Scene, pool: &rayon::ThreadPool) {
    #[cfg(feature = "parallel")]
    if pool.current_num_threads() > 1 {
        pool.install(|| pipeline.update_parallel(scene));
        return;
    }
    let _ = pool;
    pipeline.update(scene);
}

/// The demo's pipeline: with manifolds (prediction `MANIFOLD_PREDICTION`)
/// or single contacts, and the pair search asked for.
fn new_pipeline(opts: &Options) -> ContactPipeline {
    let pipeline = if opts.manifolds {
        ContactPipeline::new().with_manifolds(MANIFOLD_PREDICTION).expect("valid prediction")
    } else {
        ContactPipeline::new()
    };
    pipeline.with_pair_search(opts.search)
}

/// Replays the recorded poses `opts.repeat` times from `first`, each time
/// through a fresh pipeline, and returns the mean over the frames of each
/// frame's fastest broadphase time, in milliseconds.
fn replay_broadphase(
    first: &Scene,
    frames: &[Vec<(ColliderHandle, Isometry)>],
    opts: &Options,
    pool: &rayon::ThreadPool,
) -> f64 {
    let mut fastest = vec![Duration::MAX; frames.len()];
    for _ in 0..opts.repeat {
        let mut scene = first.clone();
        let mut pipeline = new_pipeline(opts);
        for (poses, best) in frames.iter().zip(&mut fastest) {
            for &(h, pose) in poses {
                scene.set_pose(h, pose).expect("live collider");
            }
            update_pipeline(&mut pipeline, &mut scene, pool);
            *best = (*best).min(pipeline.stats().broadphase);
        }
    }
    fastest.iter().map(|d| d.as_secs_f64() * 1e3).sum::<f64>() / frames.len().max(1) as f64
}

/// Semi-implicit Euler under gravity; bullets fly from frame 5 on, straight.
fn integrate(scene: &mut Scene, bodies: &mut [Body], bullets: &mut [Bullet], frame: usize) {
    for b in bodies.iter_mut() {
        b.velocity.y += GRAVITY * DT;
        b.position += b.velocity * DT;
        let pose = Isometry::from_parts(Translation3::from(b.position), b.rotation);
        scene.set_pose(b.handle, pose).expect("live body");
    }
    if frame >= 5 {
        for b in bullets.iter_mut().filter(|b| !b.stopped) {
            b.position += b.velocity * DT;
            scene
                .set_pose(b.handle, Isometry::translation(b.position.x, b.position.y, b.position.z))
                .expect("live bullet");
        }
    }
}

/// Position projection plus an inelastic velocity impulse per contact,
/// accumulated per body (Jacobi) and averaged.
fn resolve_contacts(scene: &Scene, pipeline: &ContactPipeline, bodies: &mut [Body]) {
    let index = |h: ColliderHandle| {
        let data = scene.get(h).map_or(STATIC, |c| c.user_data());
        (data != STATIC && data & BULLET_BIT == 0).then_some(data as usize)
    };
    let mut push = vec![(Vector::zeros(), 0u32); bodies.len()];
    for pair in pipeline.contacts() {
        let (ia, ib) = (index(pair.a), index(pair.b));
        let n = pair.contact.normal.into_inner();
        let both = ia.is_some() && ib.is_some();
        let share = if both { 0.5 } else { 1.0 };
        let correction = n * (pair.contact.depth * 0.8 * share);
        let va = ia.map_or(Vector::zeros(), |i| bodies[i].velocity);
        let vb = ib.map_or(Vector::zeros(), |i| bodies[i].velocity);
        let approach = (vb - va).dot(&n);
        let impulse = if approach < 0.0 { -approach * 1.1 * share } else { 0.0 };
        if let Some(i) = ia {
            push[i].0 -= correction;
            push[i].1 += 1;
            bodies[i].velocity -= n * impulse;
        }
        if let Some(i) = ib {
            push[i].0 += correction;
            push[i].1 += 1;
            bodies[i].velocity += n * impulse;
        }
    }
    for (b, (p, count)) in bodies.iter_mut().zip(push) {
        if count > 0 {
            b.position += p / count as Real;
            b.velocity *= 0.98;
        }
    }
}

/// A bullet with a CCD impact stops at its time of impact.
fn stop_bullets(scene: &mut Scene, pipeline: &ContactPipeline, bullets: &mut [Bullet]) {
    for impact in pipeline.ccd_impacts() {
        if let Some(b) = bullets.iter_mut().find(|b| b.handle == impact.collider) {
            b.position -= b.velocity * DT * (1.0 - impact.hit.toi);
            b.velocity = Vector::zeros();
            b.stopped = true;
            let at = Isometry::translation(b.position.x, b.position.y, b.position.z);
            scene.teleport(b.handle, at).expect("live bullet");
        }
    }
}

fn color_of(scene: &Scene, h: ColliderHandle) -> [f32; 3] {
    match scene.get(h).map(|c| (c.user_data(), c.shape())) {
        Some((STATIC, _)) => [0.75, 0.72, 0.68],
        Some((d, _)) if d & BULLET_BIT != 0 => [1.0, 0.2, 0.1],
        Some((_, ColliderShape::Sphere { .. })) => [0.25, 0.55, 0.95],
        Some((_, ColliderShape::ConvexHull(_))) => [0.45, 0.75, 0.35],
        Some((_, ColliderShape::Compound(_))) => [0.7, 0.4, 0.85],
        _ => [0.95, 0.65, 0.2],
    }
}

/// The prediction distance of `--manifolds` (m).
const MANIFOLD_PREDICTION: Real = 0.02;

/// Times the final frame's candidate pairs (dynamic colliders whose boxes,
/// grown by the prediction, overlap another collider's) through proxima's
/// `contact_manifolds` and parry3d's `DefaultQueryDispatcher::contact_manifolds`,
/// one thread each, same pairs, same prediction, output buffers reused.
fn compare_manifolds(scene: &Scene) {
    use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
    use proxima::narrowphase::intersects_aabb_aabb;
    let all: Vec<_> = scene.iter().collect();
    let mut pairs = Vec::new();
    for (i, (_, a)) in all.iter().enumerate() {
        for (_, b) in &all[i + 1..] {
            let dynamic = a.kind() != BodyKind::Fixed || b.kind() != BodyKind::Fixed;
            let near = intersects_aabb_aabb(&a.aabb().loosened(MANIFOLD_PREDICTION), b.aabb());
            if dynamic && near {
                pairs.push((a.world_shape().clone(), b.world_shape().clone()));
            }
        }
    }
    // The pairs parry3d's twins cover (a compound has none here).
    let (pairs, parry): (Vec<_>, Vec<_>) = pairs
        .into_iter()
        .filter_map(|(a, b)| {
            let twins = (parry_shape(&a)?, parry_shape(&b)?);
            Some(((a, b), twins))
        })
        .unzip();
    if pairs.is_empty() {
        return;
    }
    let mut ours = Vec::new();
    let t = Instant::now();
    let mut points = 0;
    for (a, b) in &pairs {
        ours.clear();
        contact_manifolds(a, b, MANIFOLD_PREDICTION, &mut ours);
        points += ours.iter().map(|m| m.len()).sum::<usize>();
    }
    let proxima_ns = t.elapsed().as_secs_f64() * 1e9 / pairs.len() as f64;
    let mut theirs: Vec<ContactManifold<(), ()>> = Vec::new();
    let t = Instant::now();
    let mut parry_points = 0;
    for ((pa, sa), (pb, sb)) in &parry {
        theirs.clear();
        let pos12 = pa.inv_mul(pb);
        DefaultQueryDispatcher
            .contact_manifolds(&pos12, sa.as_ref(), sb.as_ref(), MANIFOLD_PREDICTION, &mut theirs, &mut None)
            .expect("supported pair");
        parry_points += theirs.iter().map(|m| m.points.len()).sum::<usize>();
    }
    let parry_ns = t.elapsed().as_secs_f64() * 1e9 / pairs.len() as f64;
    println!(
        "manifolds of the final frame's {} candidate pairs (prediction {MANIFOLD_PREDICTION}): proxima {proxima_ns:.0} ns/pair ({points} points), parry3d {parry_ns:.0} ns/pair ({parry_points} points): {:.1}x",
        pairs.len(),
        parry_ns / proxima_ns
    );
}

/// parry3d's twin of a placed sphere, box or hull (the demo's body shapes).
fn parry_shape(shape: &WorldShape) -> Option<(parry3d::math::Pose, Box<dyn parry3d::shape::Shape>)> {
    use proxima_test_support::convert;
    Some(match shape {
        WorldShape::Sphere(s) => {
            let (p, b) = convert::ball(s);
            (p, Box::new(b))
        }
        WorldShape::Obb(o) => {
            let (p, c) = convert::cuboid(o);
            (p, Box::new(c))
        }
        WorldShape::Aabb(a) => {
            let (p, c) = convert::aabb_cuboid(a);
            (p, Box::new(c))
        }
        WorldShape::ConvexHull(hull, pose) => {
            let (p, c) = convert::convex_hull(hull, pose);
            (p, Box::new(c))
        }
        _ => return None,
    })
}

fn brute_force_pairs(scene: &Scene) -> BTreeSet<(ColliderHandle, ColliderHandle)> {
    let all: Vec<_> = scene.iter().collect();
    let mut out = BTreeSet::new();
    for (i, (ha, a)) in all.iter().enumerate() {
        for (hb, b) in &all[i + 1..] {
            let both_static = a.kind() == BodyKind::Fixed && b.kind() == BodyKind::Fixed;
            let groups =
                (a.groups().memberships & b.groups().filter) != 0 && (b.groups().memberships & a.groups().filter) != 0;
            if !both_static && groups && contact(a.world_shape(), b.world_shape()).is_some() {
                out.insert((*ha.min(hb), *ha.max(hb)));
            }
        }
    }
    out
}
