//! A rigid-body solver on top of proxima's contact manifolds: a tower of 10
//! boxes, a tower of 8 triangular prisms (convex hulls), a tower of compound
//! bodies (benches of three boxes, a table of five, and a house of a box and
//! a hull), a 20-layer pyramid wall (210 boxes), boxes and capsules coming
//! to rest on a triangle-mesh ramp and floor, and spheres and capsules on
//! heightfield hills. proxima finds the manifolds (`ContactPipeline::with_manifolds`);
//! the bodies, the integrator and the sequential-impulse solver are written
//! here (`examples/solver/`).
//!
//! # The bodies
//! A body's mass, centre of mass and inertia tensor come from its shape at
//! uniform density (`examples/solver/body.rs`): closed forms for boxes,
//! spheres and capsules, sums over tetrahedra for hulls, and for a compound
//! the children's, moved to their common centre of mass by the
//! parallel-axis theorem. The solver takes the collider's origin as the
//! centre of mass, so the scenes build each compound about it.
//!
//! # The contact constraint
//! For a manifold with unit normal `n` from body A to body B, each point's
//! anchor is the midpoint `p` of its witness points, with `r_a = p - x_a`,
//! `r_b = p - x_b`. The normal velocity is
//! `v_n = n . (v_b + w_b x r_b - v_a - w_a x r_a)` and the effective mass
//! `m_n = 1 / k` with
//! `k = 1/m_a + 1/m_b + (r_a x n) . I_a^-1 (r_a x n) + (r_b x n) . I_b^-1 (r_b x n)`
//! (`I^-1 = R I_body^-1 R^T`, world frame; a static body has `1/m = 0`,
//! `I^-1 = 0`). An iteration applies `dlambda = -m_n (v_n + bias)` and clamps
//! the accumulated impulse `lambda >= 0` (push, never pull). Two friction
//! rows along an orthonormal tangent basis `(t1, t2)` do the same with
//! `v_t = t . v_rel`, the pair clamped to the disc `|lambda_t| <= mu lambda`
//! (`mu = 0.6`).
//!
//! The bias. The current separation `s` is `-depth` plus the anchors' motion
//! along `n` since the manifold was found. A speculative point (`s > 0`, the
//! bodies up to the prediction distance apart) gets `bias = s / h`: the
//! bodies may close the gap within the substep `h` but not pass it. An
//! overlapping point gets a soft bias (Catto's "soft step", Box2D v3): the
//! contact is a spring of 60 Hz and damping ratio 10, which with
//! `w = 2 pi 60`, `a1 = 2 zeta + h w`, `a2 = h w a1`, `a3 = 1 / (1 + a2)`
//! gives `bias = max(w / a1 * s, -3 m/s)` and
//! `dlambda = -m_n a2 a3 (v_n + bias) - a3 lambda` (no slop: the spring
//! itself settles at a small overlap, `g / w^2` for one body on the ground,
//! more under a stack). Each 1/60 s step has 8 substeps; each substep
//! integrates velocities (gravity -9.81 on y), warm starts, solves with the
//! bias, integrates positions (semi-implicit Euler) and relaxes: one more
//! pass without the bias, so the push-out velocity does not remain as
//! bounce (16 velocity passes a step).
//!
//! # Warm starting
//! The manifold points' ids name the features that touch (a box's face and a
//! corner of the other, say) and stay the same from step to step while those
//! features touch. After each step the solver keeps every point's normal
//! impulse and its friction impulse (as a world vector) under the key
//! `(collider a, collider b, id)`; the next step starts each point with the
//! impulses of the point of the same key (and a normal within 25 degrees),
//! or with zero. A resting stack so starts from last step's answer rather
//! than rebuilding it in a few iterations. When no point has the id, the
//! nearest point of the pair within 2 cm gives its impulses: two equal
//! boxes face to face yield the same corners whichever face the
//! narrowphase takes as the reference, but under other ids.
//!
//! # The figures and checks
//! Per scene: the mean step time (collision and solve), the mean manifold
//! points per step, the share warm started, the largest motion of any body
//! point (a box's corners, a hull's vertices, a capsule's segment ends, a
//! compound's children's points) from its pose after step 60 (the first
//! second of settling) to the last step, and from its start pose, and the
//! deepest penetration seen. The towers and pyramid pass when no corner
//! moved 1 cm after step 60 (the stacks stand still); the mesh and hills
//! scenes pass when no body overlaps a mesh or the heightfield by more than
//! 5 mm after step 300 and every body is at rest at the end (speed below
//! 5 cm/s; a capsule lying on a mesh gets two points, and rolling
//! resistance stops one that was set rolling).
//! The narrowphase cost per manifold is `FrameStats::narrowphase` over the
//! manifold count.
//!
//! ```text
//! cargo run --release --example solver -- [--steps N] [--layers L] [--substeps S]
//!     [--iterations I] [--relax R] [--hertz H] [--no-warm-start] [--ci]
//! ```
//! `--ci` runs the six scenes for the same 600 steps and exits with status
//! 1 when a check fails.

#[path = "solver/body.rs"]
mod body;
#[path = "solver/scenes.rs"]
mod scenes;
#[path = "solver/solve.rs"]
mod solve;

use std::time::{Duration, Instant};

use proxima::narrowphase::Real;
use proxima::scene::ContactPipeline;

use scenes::World;
use solve::{Solver, SolverOptions};

/// Step length (s).
const DT: Real = 1.0 / 60.0;
/// Speculative distance (m): pairs this close get manifolds.
const PREDICTION: Real = 0.05;
/// Steps before the stacks' rest poses are taken.
const SETTLE_STEPS: usize = 60;
/// Steps before the mesh scene's penetration is checked.
const MESH_SETTLE_STEPS: usize = 300;
/// Largest motion (m) of a stacked box after settling.
const MAX_DRIFT: Real = 0.01;
/// Largest overlap (m) of a body with a mesh after settling.
const MAX_MESH_PENETRATION: Real = 0.005;
/// Largest speed (m/s) of a body at rest.
const REST_SPEED: Real = 0.05;

struct Options {
    steps: usize,
    layers: usize,
    solver: SolverOptions,
    ci: bool,
}

impl Options {
    fn parse() -> Result<Self, String> {
        let mut o = Options { steps: 600, layers: 20, solver: SolverOptions::default(), ci: false };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = |name: &str| -> Result<usize, String> {
                let v = args.next().ok_or(format!("{name} needs a value"))?;
                v.parse().map_err(|_| format!("{name}: not a count: {v}"))
            };
            match arg.as_str() {
                "--steps" => o.steps = value("--steps")?.max(SETTLE_STEPS + 1),
                "--layers" => o.layers = value("--layers")?.max(1),
                "--substeps" => o.solver.substeps = value("--substeps")?.max(1),
                "--iterations" => o.solver.iterations = value("--iterations")?,
                "--relax" => o.solver.relax_iterations = value("--relax")?,
                "--hertz" => o.solver.contact_hertz = value("--hertz")? as Real,
                "--no-warm-start" => o.solver.warm_start = false,
                "--ci" => o.ci = true,
                other => return Err(format!("unknown argument {other}")),
            }
        }
        Ok(o)
    }
}

/// What one scene's run measured.
#[derive(Default)]
struct Report {
    steps: usize,
    step_time: Duration,
    solve_time: Duration,
    narrowphase_time: Duration,
    manifolds: usize,
    points: usize,
    warm_started: usize,
    /// Largest probe motion from the pose after `SETTLE_STEPS` to the end.
    drift_after_settle: Real,
    /// Largest probe motion from the start pose to the end.
    drift_from_start: Real,
    deepest: Real,
    /// Deepest overlap with a static collider after `MESH_SETTLE_STEPS`:
    /// of a flat-faced body (box, hull, compound), of a round one (sphere, capsule).
    deepest_static_settled: [Real; 2],
    /// Fastest body at the end: a flat-faced one, a round one.
    final_max_speed: [Real; 2],
    /// Dynamic bodies: flat-faced, round.
    counts: [usize; 2],
}

fn run(world: &mut World, steps: usize, options: SolverOptions) -> Report {
    let mut pipeline = ContactPipeline::new().with_manifolds(PREDICTION).expect("valid prediction");
    let mut solver = Solver::new(options);
    let start = world.probe_positions();
    let mut settled = start.clone();
    let mut r = Report { steps, ..Report::default() };
    for step in 0..steps {
        let t0 = Instant::now();
        let s = world.step(&mut pipeline, &mut solver, DT);
        r.step_time += t0.elapsed();
        r.solve_time += s.solve_time;
        r.narrowphase_time += pipeline.stats().narrowphase;
        r.manifolds += pipeline.manifolds().len();
        r.points += s.points;
        r.warm_started += s.warm_started;
        for pair in pipeline.manifolds() {
            let deepest = pair.manifold.points().iter().map(|p| p.depth).fold(0.0, Real::max);
            r.deepest = r.deepest.max(deepest);
            if step >= MESH_SETTLE_STEPS && (world.is_fixed(pair.a) || world.is_fixed(pair.b)) {
                let round = world.is_round(pair.a) || world.is_round(pair.b);
                let slot = &mut r.deepest_static_settled[usize::from(round)];
                *slot = slot.max(deepest);
            }
        }
        if step + 1 == SETTLE_STEPS {
            settled = world.probe_positions();
        }
    }
    let end = world.probe_positions();
    let largest =
        |from: &[proxima::narrowphase::Point]| from.iter().zip(&end).map(|(a, b)| (b - a).norm()).fold(0.0, Real::max);
    r.drift_after_settle = largest(&settled);
    r.drift_from_start = largest(&start);
    for body in &world.bodies {
        let round = usize::from(world.is_round(body.collider));
        r.final_max_speed[round] = r.final_max_speed[round].max(body.linvel.norm());
        r.counts[round] += usize::from(body.is_dynamic());
    }
    r
}

fn ms(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e3 / n.max(1) as f64
}

/// Prints the report and returns whether the scene passed.
fn print(name: &str, bodies: usize, r: &Report, stack: bool) -> bool {
    println!("{name}: {bodies} dynamic bodies, {} steps of {:.4} s", r.steps, DT);
    println!(
        "  mean step {:.3} ms (solver {:.3} ms), {:.1} manifolds and {:.1} points per step, {:.0}% of points warm started",
        ms(r.step_time, r.steps),
        ms(r.solve_time, r.steps),
        r.manifolds as f64 / r.steps as f64,
        r.points as f64 / r.steps as f64,
        100.0 * r.warm_started as f64 / r.points.max(1) as f64
    );
    println!(
        "  narrowphase {:.0} ns per manifold; deepest penetration seen {:.2} mm",
        r.narrowphase_time.as_secs_f64() * 1e9 / r.manifolds.max(1) as f64,
        r.deepest * 1e3
    );
    println!(
        "  largest motion of a body point: {:.2} mm after step {SETTLE_STEPS}, {:.2} mm from the start pose; fastest body at the end {:.3} m/s",
        r.drift_after_settle * 1e3,
        r.drift_from_start * 1e3,
        r.final_max_speed[0].max(r.final_max_speed[1])
    );
    if stack {
        let pass = r.drift_after_settle < MAX_DRIFT;
        println!(
            "  {}: every box moved < {:.0} mm after step {SETTLE_STEPS}",
            if pass { "PASS" } else { "FAIL" },
            MAX_DRIFT * 1e3
        );
        pass
    } else {
        let mut pass = true;
        for (i, kind) in ["boxes, hulls, compounds", "spheres, capsules"].into_iter().enumerate() {
            if r.counts[i] == 0 {
                continue;
            }
            let (depth, speed) = (r.deepest_static_settled[i], r.final_max_speed[i]);
            let ok = depth <= MAX_MESH_PENETRATION && speed < REST_SPEED;
            println!(
                "  {}: {kind}: deepest overlap with the meshes after step {MESH_SETTLE_STEPS} {:.2} mm (limit {:.0} mm), fastest at the end {speed:.3} m/s (limit {REST_SPEED})",
                if ok { "PASS" } else { "FAIL" },
                depth * 1e3,
                MAX_MESH_PENETRATION * 1e3
            );
            pass &= ok;
        }
        pass
    }
}

fn main() {
    let options = match Options::parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let mut all = true;
    let scenes: [(&str, World, bool); 6] = [
        ("tower", scenes::tower(10), true),
        ("hull tower", scenes::hull_tower(8), true),
        ("compound tower", scenes::compound_tower(), true),
        ("pyramid", scenes::pyramid(options.layers), true),
        ("mesh ramp", scenes::mesh_ramp(), false),
        ("hills", scenes::hills(), false),
    ];
    for (name, mut world, stack) in scenes {
        let bodies = world.bodies.iter().filter(|b| b.is_dynamic()).count();
        let report = run(&mut world, options.steps, options.solver);
        all &= print(name, bodies, &report, stack);
    }
    println!("{} in {:.1} s", if all { "all scenes PASS" } else { "some scene FAILS" }, t0.elapsed().as_secs_f64());
    if options.ci && !all {
        std::process::exit(1);
    }
}
