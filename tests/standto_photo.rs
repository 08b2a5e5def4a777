//! `spotter resolve --photo`: the figures' positions come from a photo of
//! the table, bound to the scenario's figures. The scenario
//! `scenarios/zulu-rush.toml` is written from the truth file of
//! `fixtures/photoreal/cam01/frame-04.jpg`; the truth scores the result.

use std::path::Path;
use std::process::Command;

const PHOTO: &str = "fixtures/photoreal/cam01/frame-04.jpg";
const TRUTH: &str = "fixtures/photoreal/cam01/frame-04.truth.json";
const SCENARIO: &str = "scenarios/zulu-rush.toml";
/// The detector's position error on these photos is a few hundredths of an
/// inch (`tests/detect_accuracy.rs`); this is the bar for a figure's
/// final position.
const POSITION_TOLERANCE_IN: f64 = 0.1;

const LAYOUT: &str = "fixtures/detect/cam01.table.toml";

fn spotter(scenario: &Path, extra: &[&str]) -> (bool, String, String) {
    spotter_on(scenario, LAYOUT, extra)
}

fn spotter_on(scenario: &Path, layout: &str, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec![
        "resolve",
        "--scenario",
        scenario.to_str().unwrap(),
        "--photo",
        PHOTO,
        "--camera",
        "fixtures/detect/cam01.camera.toml",
        "--layout",
        layout,
        "--actor",
        "Private Williams",
        "--action",
        "fire",
        "--target",
        "Warrior Mkhosana",
        "--seed",
        "7",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_spotter"))
        .args(&args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Truth positions of the scenario's figures, by the truth id the scenario
/// names in a comment above each figure.
fn truth_by_name() -> Vec<(String, f64, f64)> {
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(TRUTH).unwrap()).unwrap();
    let text = std::fs::read_to_string(SCENARIO).unwrap();
    let mut out = Vec::new();
    let mut pending: Option<u64> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# truth figure ") {
            pending = rest.split(':').next().and_then(|n| n.trim().parse().ok());
        } else if let (Some(tid), Some(name)) = (pending, line.strip_prefix("name = ")) {
            let f = truth["figures"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["id"].as_u64() == Some(tid))
                .unwrap();
            out.push((
                name.trim_matches('"').to_owned(),
                f["x_in"].as_f64().unwrap(),
                f["y_in"].as_f64().unwrap(),
            ));
            pending = None;
        }
    }
    out
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The scenario with some figures' positions changed (where they stood a
/// turn earlier), and extra figures appended.
fn variant(dir: &Path, moves: &[(&str, f64, f64)], extra: &str) -> std::path::PathBuf {
    let mut text = std::fs::read_to_string(SCENARIO).unwrap();
    for (name, x, y) in moves {
        let at = text.find(&format!("name = \"{name}\"")).unwrap();
        let xs = at + text[at..].find("x_in = ").unwrap();
        let ye = xs + text[xs..].find("facing_deg").unwrap();
        text.replace_range(xs..ye, &format!("x_in = {x}\ny_in = {y}\n"));
    }
    text.push_str(extra);
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn positions_come_from_the_photo_and_the_range_is_measured_there() {
    let dir = tempfile::tempdir().unwrap();
    // Mkhosana stood 5 in further off a turn ago; the photo shows him now.
    let truth = truth_by_name();
    assert_eq!(truth.len(), 15);
    let (_, tx, ty) = truth
        .iter()
        .find(|t| t.0 == "Warrior Mkhosana")
        .unwrap()
        .clone();
    let scenario = variant(dir.path(), &[("Warrior Mkhosana", tx + 3.0, ty + 4.0)], "");
    let (ok, out, err) = spotter(&scenario, &["--json"]);
    assert!(ok, "{err}");
    let v = json(&out);
    let bound = v["photo"]["bound"].as_array().unwrap();
    assert_eq!(bound.len(), 15, "every figure bound");
    assert!(v["photo"]["unexplained"].as_array().unwrap().is_empty());
    for (name, x, y) in &truth {
        let b = bound.iter().find(|b| b["name"] == name.as_str()).unwrap();
        let e = (b["x_in"].as_f64().unwrap() - x).hypot(b["y_in"].as_f64().unwrap() - y);
        assert!(
            e <= POSITION_TOLERANCE_IN,
            "{name} is {e:.3} in from the truth"
        );
    }
    let mk = bound
        .iter()
        .find(|b| b["name"] == "Warrior Mkhosana")
        .unwrap();
    assert!((mk["moved_in"].as_f64().unwrap() - 5.0).abs() < POSITION_TOLERANCE_IN);
    // The range the rules used is the photo's, not the scenario's.
    let (_, wx, wy) = truth
        .iter()
        .find(|t| t.0 == "Private Williams")
        .unwrap()
        .clone();
    let range = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "measured" && e["what"] == "range")
        .unwrap();
    let true_range = (tx - wx).hypot(ty - wy);
    let got = range["value"].as_f64().unwrap();
    assert_eq!(range["unit"], "in");
    assert!(
        (got - true_range).abs() <= POSITION_TOLERANCE_IN,
        "range {got:.3} in, truth {true_range:.3} in"
    );
    // The photo's uncertainty replaces the scenario's 0.05 in.
    assert!(range["sigma"].as_f64().unwrap() < 0.05);
}

#[test]
fn look_alike_figures_that_could_be_either_are_refused_until_bound() {
    let dir = tempfile::tempdir().unwrap();
    let truth = truth_by_name();
    let at = |n: &str| truth.iter().find(|t| t.0 == n).unwrap().clone();
    let (a, b) = (at("Colour Sergeant Bourne"), at("Private Hook"));
    // Both red British figures typed in at the point midway between them.
    let (mx, my) = ((a.1 + b.1) / 2.0, (a.2 + b.2) / 2.0);
    let scenario = variant(
        dir.path(),
        &[("Colour Sergeant Bourne", mx, my), ("Private Hook", mx, my)],
        "",
    );
    let (ok, _, err) = spotter(&scenario, &[]);
    assert!(!ok);
    assert!(err.contains("Colour Sergeant Bourne"), "{err}");
    assert!(
        err.contains("--bind \""),
        "the error says what to do: {err}"
    );
    let pin = format!("Colour Sergeant Bourne={:.2},{:.2}", a.1, a.2);
    let (ok, out, err) = spotter(&scenario, &["--bind", &pin, "--json"]);
    assert!(ok, "{err}");
    let v = json(&out);
    let bourne = v["photo"]["bound"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "Colour Sergeant Bourne")
        .unwrap()
        .clone();
    let e = (bourne["x_in"].as_f64().unwrap() - a.1).hypot(bourne["y_in"].as_f64().unwrap() - a.2);
    assert!(e <= POSITION_TOLERANCE_IN, "{e}");
}

#[test]
fn a_figure_missing_from_the_photo_is_an_error_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let extra = "\n[[figure]]\nname = \"Private Moss\"\nrank = \"private\"\nside = \"British\"\nweapon = \"breech-loading-rifle\"\nmelee_weapon = \"spear-bayonet\"\nexperience = 5\nx_in = 40.0\ny_in = 5.0\nfacing_deg = 90.0\nbase = \"foot\"\n";
    let scenario = variant(dir.path(), &[], extra);
    let (ok, _, err) = spotter(&scenario, &[]);
    assert!(!ok);
    assert!(err.contains("Private Moss (blue foot base"), "{err}");
    assert!(err.contains("--keep \"Private Moss\""), "{err}");
    let (ok, out, err) = spotter(&scenario, &["--keep", "Private Moss"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("Private Moss") && out.contains("kept where the scenario puts him"),
        "{out}"
    );
}

#[test]
fn the_photo_must_be_of_the_scenarios_table() {
    let (ok, _, err) = spotter_on(Path::new(SCENARIO), "fixtures/detect/cam02.table.toml", &[]);
    assert!(!ok);
    assert!(
        err.contains("the layout is for a 36 x 36 in table") && err.contains("--layout"),
        "{err}"
    );
}
