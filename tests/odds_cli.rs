//! `spotter odds --scenario FILE --action NAME`: the odds of any rule set's
//! action in a scenario, built from the rule set's own description of its
//! actions (issue 12: "the action panel, the overlay, `spotter resolve` and
//! `spotter odds` are built from that description for all four rule sets").

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

fn demo(rule_set: &str) -> String {
    format!(
        "{}/scenarios/demo-{rule_set}.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// One action of each rule set on its demo scenario: (rule set, action,
/// the other arguments, an odds name it must give).
const CASES: [(&str, &str, &[&str], &str); 4] = [
    (
        "stand-to",
        "fire",
        &["--actor", "Pte Abbott", "--target", "Omar"],
        "p_hit",
    ),
    (
        "volley-fire",
        "fire",
        &["--actor", "Askari Faraj", "--target", "Ansar Osman"],
        "p_any_hit",
    ),
    (
        "soldiers-in-time",
        "activate",
        &[
            "--actor",
            "Sgt Lacey",
            "--action-params",
            r#"{"order": "volley-fire", "men": ["Pte Abbott"]}"#,
        ],
        "p_activates",
    ),
    ("little-colonial", "draw", &[], "p_end_of_turn"),
];

#[test]
fn odds_of_an_action_on_each_rule_sets_demo_scenario() {
    let names = spotter::rules::Registry::builtin().unwrap().names();
    assert_eq!(names.len(), CASES.len(), "a case for every rule set");
    for (rule_set, action, rest, odds_name) in CASES {
        let scenario = demo(rule_set);
        let args = [
            &[
                "odds",
                "--scenario",
                &scenario,
                "--action",
                action,
                "--json",
            ][..],
            rest,
        ]
        .concat();
        let (ok, out, err) = spotter(&args);
        assert!(ok, "{rule_set}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["schema"], "spotter.action-odds/1", "{out}");
        assert_eq!(v["rule_set"], rule_set, "{out}");
        assert_eq!(v["action"], action, "{out}");
        let odds = v["odds"].as_array().unwrap();
        let p = odds
            .iter()
            .find(|o| o["name"] == odds_name)
            .and_then(|o| o["p"].as_f64())
            .unwrap_or_else(|| panic!("{rule_set}: no {odds_name} in {out}"));
        assert!(p > 0.0 && p < 1.0, "{rule_set}: {odds_name} = {p}");
        // The text form gives the same odds.
        let text_args: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
        let (ok, text, err) = spotter(&text_args);
        assert!(ok, "{rule_set}: {err}");
        assert!(
            text.contains(odds_name) && text.contains(&format!("{:.1}%", 100.0 * p)),
            "{rule_set}: {text}"
        );
    }
}

#[test]
fn an_action_the_rules_refuse_says_why_and_a_missing_parameter_says_how_to_give_it() {
    let scenario = demo("stand-to");
    let (ok, _, err) = spotter(&[
        "odds",
        "--scenario",
        &scenario,
        "--action",
        "fire",
        "--actor",
        "Pte Abbott",
        "--target",
        "Osman",
    ]);
    assert!(!ok);
    assert!(err.contains("not allowed") && err.contains("Omar"), "{err}");
    let (ok, _, err) = spotter(&[
        "odds",
        "--scenario",
        &scenario,
        "--action",
        "fire",
        "--actor",
        "Pte Abbott",
    ]);
    assert!(!ok);
    assert!(
        err.contains("`target`") && err.contains("--target"),
        "{err}"
    );
    let (ok, _, err) = spotter(&["odds", "--scenario", &scenario, "--action", "dance"]);
    assert!(!ok);
    assert!(
        err.contains("no action `dance`") && err.contains("fire"),
        "{err}"
    );
}

#[test]
fn odds_with_neither_form_names_both() {
    let (ok, _, err) = spotter(&["odds"]);
    assert!(!ok);
    assert!(
        err.contains("--scenario FILE --action NAME") && err.contains("spotter odds stand-to fire"),
        "{err}"
    );
}
