//! The replay examples' command line.

use crate::SceneOptions;

/// The scene and the number of passes from the command line: `tall` or
/// `wide` (the default), then `key=value` arguments: `seed` (decimal or
/// `0x` hex), `bodies`, `columns`, `steps`, `capsules` (a fraction),
/// `floor` (`box` or `mesh`) and `passes`.
pub fn scene_args() -> (SceneOptions, usize) {
    let tall = std::env::args().any(|a| a == "tall");
    let mut scene = if tall { SceneOptions::tall_drop() } else { SceneOptions::default() };
    let mut passes = 1;
    for arg in std::env::args().skip(1).filter(|a| a != "tall" && a != "wide") {
        let (key, value) = arg.split_once('=').unwrap_or_else(|| panic!("unknown argument {arg}"));
        match key {
            "seed" => scene.seed = parse_seed(&arg, value),
            "bodies" => scene.bodies = parse(&arg, value),
            "columns" => scene.columns = parse(&arg, value),
            "steps" => scene.steps = parse(&arg, value),
            "capsules" => scene.capsules = parse(&arg, value),
            "floor" => scene.floor = parse(&arg, value),
            "passes" => passes = parse::<usize>(&arg, value).max(1),
            _ => panic!("unknown argument {arg}"),
        }
    }
    assert!(scene.columns > 0 && scene.bodies > 0, "columns and bodies must be at least 1");
    assert!((0.0..=1.0).contains(&scene.capsules), "capsules is a fraction in [0, 1]");
    (scene, passes)
}

/// A seed in decimal or in hex (`0x...`, as printed), from argument `arg`
/// (`key=value`).
pub fn parse_seed(arg: &str, value: &str) -> u64 {
    match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("bad value in {arg}")),
        None => parse(arg, value),
    }
}

/// The value of argument `arg` (`key=value`).
pub fn parse<V: std::str::FromStr>(arg: &str, value: &str) -> V {
    value.parse().unwrap_or_else(|_| panic!("bad value in {arg}"))
}
