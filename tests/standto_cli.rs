//! `spotter odds` and `spotter resolve` as a player runs them.

use std::process::Command;

fn spotter(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spotter"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Keys of a flat JSON object in the order they are printed.
fn key_order(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let mut keys: Vec<(usize, String)> = v
        .as_object()
        .unwrap()
        .keys()
        .map(|k| (json.find(&format!("\"{k}\":")).unwrap(), k.clone()))
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

#[test]
fn odds_fire_json_for_the_dragoon() {
    let (ok, out, err) = spotter(&[
        "odds",
        "stand-to",
        "fire",
        "--weapon",
        "breech-loading-carbine",
        "--range-in",
        "18",
        "--ability",
        "0",
        "--save",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        key_order(&out),
        [
            "schema",
            "band",
            "needed",
            "p_on_target",
            "p_saved",
            "p_hit",
            "p_light",
            "p_serious",
            "p_killed"
        ]
    );
    assert!(
        out.starts_with("{\"schema\":\"spotter.odds/1\",\"band\":\"medium\",\"needed\":8,"),
        "{out}"
    );
    assert_eq!(v["schema"], "spotter.odds/1");
    assert_eq!(v["band"], "medium");
    assert_eq!(v["needed"], 8);
    let p = |k: &str| v[k].as_f64().unwrap();
    approx::assert_relative_eq!(p("p_on_target"), 15.0 / 36.0);
    approx::assert_relative_eq!(p("p_saved"), 15.0 / 36.0 * 2.0 / 6.0);
    approx::assert_relative_eq!(p("p_hit"), 15.0 / 36.0 * 4.0 / 6.0);
    // Light: even non-doubles 8 and 10 that are not saved, plus saved doubles (note 1).
    approx::assert_relative_eq!(
        p("p_light"),
        6.0 / 36.0 * 4.0 / 6.0 + 3.0 / 36.0 * 2.0 / 6.0
    );
    approx::assert_relative_eq!(p("p_serious"), 6.0 / 36.0 * 4.0 / 6.0);
    approx::assert_relative_eq!(p("p_killed"), 3.0 / 36.0 * 4.0 / 6.0);
}

#[test]
fn odds_melee_json() {
    let (ok, out, err) = spotter(&[
        "odds",
        "stand-to",
        "melee",
        "--attacker-mod",
        "3",
        "--defender-mod",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        key_order(&out),
        [
            "schema",
            "p_attacker_wounded",
            "p_defender_wounded",
            "p_no_wound"
        ]
    );
    let a = v["p_attacker_wounded"].as_f64().unwrap();
    let d = v["p_defender_wounded"].as_f64().unwrap();
    assert!(d > a, "the attacker has the better modifier");
}

#[test]
fn odds_text_and_too_close_to_call() {
    let (ok, out, _) = spotter(&[
        "odds",
        "stand-to",
        "fire",
        "--weapon",
        "breech-loading-carbine",
        "--range-in",
        "12.1",
        "--sigma-in",
        "0.2",
    ]);
    assert!(ok);
    assert!(out.contains("TOO CLOSE TO CALL"), "{out}");
    let (ok, _, err) = spotter(&[
        "odds",
        "stand-to",
        "fire",
        "--weapon",
        "breech-loading-carbine",
        "--range-in",
        "60",
    ]);
    assert!(!ok && err.contains("beyond"), "{err}");
}

#[test]
fn resolve_the_dragoon_with_typed_dice_and_with_a_seed() {
    let base = [
        "resolve",
        "--scenario",
        "scenarios/dragoon.toml",
        "--actor",
        "Trooper Hobbs",
        "--action",
        "fire",
        "--target",
        "Hadendowa warrior",
    ];
    let (ok, out, err) = spotter(&[&base[..], &["--dice", "4,6,4", "--json"]].concat());
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "spotter.resolve/1");
    let events = v["events"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "wounded" && e["wound"] == "light"),
        "{out}"
    );
    let (_, a, _) = spotter(&[&base[..], &["--seed", "7"]].concat());
    let (_, b, _) = spotter(&[&base[..], &["--seed", "7"]].concat());
    assert_eq!(a, b);
    assert!(a.contains("8+ needed"), "{a}");
}

/// `spotter resolve` runs any rule set's action by name; Little Colonial
/// Rules' measurements print in centimetres.
#[test]
fn resolve_runs_a_little_colonial_card_and_prints_centimetres() {
    let (ok, out, err) = spotter(&[
        "resolve",
        "--scenario",
        concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/lcr-baler.toml"),
        "--rule-action",
        "draw",
        "--action-params",
        r#"{"then": "fire"}"#,
        "--seed",
        "1899",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("card"), "{out}");
    for line in out.lines().filter(|l| l.starts_with("measured")) {
        assert!(line.contains(" cm "), "{line}");
    }
    // A mistyped parameter is not a refusal.
    let (ok, _, err) = spotter(&[
        "resolve",
        "--scenario",
        concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/lcr-baler.toml"),
        "--rule-action",
        "draw",
        "--action-params",
        r#"{"thenn": "fire"}"#,
    ]);
    assert!(!ok);
    assert!(err.contains("cannot be read"), "{err}");
}
