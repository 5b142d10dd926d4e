//! Replays a recorded rapier scene through one contender for callgrind:
//! `valgrind --tool=callgrind --instr-atstart=no target/release/examples/profile_step -- [tall|wide] [from=F] [to=T] [bodies=N] [steps=N] [capsules=F] [floor=box|mesh] [contender=proxima|grid|tracker|parry3d]`,
//! then `callgrind_control -i on` once it prints `ready` (it waits 3 s):
//! the steps from frame `F` to frame `T` are then the ones counted. The
//! recording and the steps before `F` run uninstrumented.

use proxima::scene::PairSearch;
use proxima_bench_rapier::*;
use std::hint::black_box;

fn main() {
    let mut scene =
        if std::env::args().any(|a| a == "tall") { SceneOptions::tall_drop() } else { SceneOptions::default() };
    let (mut from, mut to, mut contender) = (0usize, usize::MAX, "proxima".to_string());
    for arg in std::env::args().skip(1).filter(|a| a != "tall" && a != "wide") {
        let (key, value) = arg.split_once('=').unwrap_or_else(|| panic!("unknown argument {arg}"));
        match key {
            "from" => from = value.parse().expect("a frame"),
            "to" => to = value.parse().expect("a frame"),
            "bodies" => scene.bodies = value.parse().expect("a count"),
            "steps" => scene.steps = value.parse().expect("a count"),
            "capsules" => scene.capsules = value.parse().expect("a fraction"),
            "floor" => scene.floor = value.parse().expect("box or mesh"),
            "contender" => contender = value.to_string(),
            _ => panic!("unknown argument {arg}"),
        }
    }
    let recording = record(&scene);
    let mut step: Box<dyn StepReplay> = match contender.as_str() {
        "proxima" => Box::new(ProximaStep::new(PairSearch::Auto)),
        "grid" => Box::new(ProximaStep::new(PairSearch::Grid)),
        "tracker" => Box::new(ProximaStep::new(PairSearch::Tracker)),
        "reuse" => Box::new(ProximaStep::reusing()),
        "parry3d" => Box::new(ParryStep::default()),
        other => panic!("unknown contender {other}"),
    };
    step.start(&recording);
    let frames = &recording.frames;
    let to = to.min(frames.len());
    for frame in &frames[1..from.max(1)] {
        step.step(frame);
    }
    println!("ready");
    std::thread::sleep(std::time::Duration::from_secs(3));
    for frame in &frames[from.max(1)..to] {
        step.step(frame);
        black_box(&step);
    }
    println!("done: {} steps", to - from.max(1));
}
