//! Each rule set describes its own actions (rules::describe); the action
//! panel, `spotter actions` and `spotter resolve --rule-action` are built
//! from the description. These tests hold the description to the rule
//! set's own parser, so a description cannot drift from the actions.

use std::process::Command as Process;

use serde_json::{Map, Value};
use spotter::rules::describe::{self, ActionSpec};
use spotter::rules::{Registry, RuleError, SHARED_ACTIONS};

fn registry() -> Registry {
    Registry::builtin().expect("built-in rule data")
}

/// Every parameter of the action given, with its preset or a sample.
fn full_params(a: &ActionSpec) -> Value {
    let mut m = Map::new();
    for p in &a.params {
        let v = p
            .preset
            .clone()
            .unwrap_or_else(|| describe::sample(&p.kind));
        m.insert(p.name.to_owned(), v);
    }
    Value::Object(m)
}

#[test]
fn every_described_action_is_read_by_the_rule_sets_own_parser() {
    let r = registry();
    for name in r.names() {
        let rules = r.get(&name).unwrap();
        let actions = rules.actions();
        assert!(!actions.is_empty(), "{name} describes no actions");
        for a in &actions {
            match rules.parse_action(a.name, &full_params(a)) {
                Ok(_) => {}
                Err(e @ (RuleError::BadParams { .. } | RuleError::Unsupported { .. })) => {
                    panic!(
                        "{name} `{}` ({}): its description does not parse: {e}",
                        a.name, a.label
                    )
                }
                Err(other) => panic!("{name} `{}`: unexpected {other}", a.name),
            }
        }
    }
}

#[test]
fn every_action_a_rule_set_parses_is_described() {
    use spotter::rules::{little_colonial, soldiers_in_time, volley_fire};
    let r = registry();
    let cases: [(&str, Vec<&str>); 4] = [
        (
            "stand-to",
            SHARED_ACTIONS
                .iter()
                .copied()
                .filter(|n| *n != "end-phase")
                .chain(spotter::rules::stand_to::action::NAMES.iter().copied())
                .collect(),
        ),
        ("volley-fire", volley_fire::action::Action::NAMES.to_vec()),
        (
            "soldiers-in-time",
            soldiers_in_time::action::Action::NAMES.to_vec(),
        ),
        (
            "little-colonial",
            little_colonial::action::Action::NAMES.to_vec(),
        ),
    ];
    for (set, names) in cases {
        let described: Vec<&str> = r
            .get(set)
            .unwrap()
            .actions()
            .iter()
            .map(|a| a.name)
            .collect();
        for n in names {
            assert!(described.contains(&n), "{set}: `{n}` has no description");
        }
    }
}

#[test]
fn a_missing_required_parameter_is_bad_params_not_a_refusal() {
    let r = registry();
    for name in r.names() {
        let rules = r.get(&name).unwrap();
        for a in rules.actions() {
            let Some(required) = a.params.iter().find(|p| p.required) else {
                continue;
            };
            let mut params = full_params(&a);
            params.as_object_mut().unwrap().remove(required.name);
            match rules.parse_action(a.name, &params) {
                Err(RuleError::BadParams { .. }) => {}
                other => panic!("{name} `{}` without `{}`: {other:?}", a.name, required.name),
            }
        }
    }
}

#[test]
fn the_panels_actions_come_from_the_descriptions() {
    let r = registry();
    let labels = |s: &str| r.get(s).unwrap().target_actions();
    assert_eq!(
        labels("volley-fire"),
        ["Unit fires", "Unit charges", "Unit fights"]
    );
    assert_eq!(
        labels("soldiers-in-time"),
        ["Fire", "Snap fire", "Melee", "Horse impact"]
    );
    assert_eq!(
        labels("little-colonial"),
        ["Fire", "Formation fire", "Close combat"]
    );
    assert_eq!(
        labels("stand-to"),
        [
            "Aimed fire",
            "Snap fire",
            "Melee",
            "Aim",
            "Fire at the covered area"
        ]
    );
}

#[test]
fn spotter_actions_lists_each_rule_sets_actions_with_their_phase() {
    let out = Process::new(env!("CARGO_BIN_EXE_spotter"))
        .args(["actions", "volley-fire"])
        .output()
        .expect("spotter runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("fire unit: unit target: unit"), "{text}");
    assert!(text.contains("in the fire phase"), "{text}");
    let out = Process::new(env!("CARGO_BIN_EXE_spotter"))
        .args(["actions", "no-such-rules"])
        .output()
        .expect("spotter runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("give one of stand-to"), "{err}");
}
