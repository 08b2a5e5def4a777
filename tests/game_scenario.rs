//! Scenario and rule-data files: the shipped ones load; errors name the
//! file, the line and the field.

use crate::common::*;
use spotter::game::Scenario;
use spotter::rules::stand_to::StandTo;
use spotter::rules::stand_to::data::BUILTIN_TOML;
use spotter::spec::SourceFile;

#[test]
fn every_shipped_scenario_loads() {
    let mut n = 0;
    for entry in std::fs::read_dir("scenarios").unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "toml") {
            let s = Scenario::load(&p, &registry()).unwrap_or_else(|e| panic!("{e}"));
            assert!(!s.state.figures.is_empty(), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 2);
}

#[test]
fn scenario_errors_name_file_line_and_field() {
    let text = std::fs::read_to_string("scenarios/dragoon.toml")
        .unwrap()
        .replace("weapon = \"thrown-spear\"", "weapon = \"laser\"")
        .replace("x_in = 28.0", "x_in = 99.0");
    let err = Scenario::from_source(
        &SourceFile::from_text("dragoon-bad.toml", text.clone()),
        &registry(),
    )
    .unwrap_err();
    let msg = err.to_string();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    assert!(
        msg.contains(&format!(
            "dragoon-bad.toml:{}: field `figure[1].weapon`",
            line_of("\"laser\"")
        )),
        "{msg}"
    );
    assert!(
        msg.contains(&format!(
            "dragoon-bad.toml:{}: field `figure[1].x_in`",
            line_of("x_in = 99.0")
        )),
        "{msg}"
    );
}

#[test]
fn rule_data_errors_name_line_and_field_and_every_house_value_has_a_reason() {
    let bad = BUILTIN_TOML.replacen(
        "range_in = [12.0, 24.0, 48.0]",
        "range_in = [30.0, 24.0, 48.0]",
        1,
    );
    let err = StandTo::from_source(&SourceFile::from_text("stand-to.toml", bad)).unwrap_err();
    assert!(err.to_string().contains("weapon[1].range_in"), "{err}");
    let typo = BUILTIN_TOML.replacen("hard_cover = \"Lost table", "hard_cuvver = \"Lost table", 1);
    let err = StandTo::from_source(&SourceFile::from_text("stand-to.toml", typo)).unwrap_err();
    assert!(err.to_string().contains("house.hard_cuvver"), "{err}");
    let house = rules().data.house_values();
    assert!(house.len() > 50, "{}", house.len());
    assert!(house.iter().all(|(_, reason)| reason.len() > 10));
    // The dragoon example's numbers are from the text, not house values.
    assert!(!house.iter().any(|(f, _)| f == "saves.charging"));
}
