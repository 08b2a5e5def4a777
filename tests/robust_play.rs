//! Issue 18, "play": commands that were accepted silently or did something
//! wrong (a unit fighting itself, firing twice, a move to a point no table
//! has, an enemy on an order's list, an empty volley, a mount speed for a
//! man on foot). Each is now a typed refusal that says what to do.

use nalgebra::Point2;
use serde_json::json;
use spotter::core::RefusalKind;
use spotter::game::{Command, Pace};
use spotter::rules::dice::TypedDice;
use spotter::rules::stand_to::action::Action as St;
use spotter::rules::{Registry, RuleSet};

use crate::common::soldiers_in_time as sit;
use crate::common::{at_phase, fig, id, refusal_kind, rules, state_from};

/// The Volley Fire! Sudan patrol with its rules, `side` to act in `phase`
/// (0 move, 1 fire, 2 melee).
fn volley_fire(
    phase: usize,
    side: &str,
) -> (spotter::game::GameState, std::sync::Arc<dyn RuleSet>) {
    let registry = Registry::builtin().unwrap();
    let mut s = spotter::game::Scenario::load(
        std::path::Path::new("scenarios/vf-sudan-patrol.toml"),
        &registry,
    )
    .unwrap()
    .state;
    s.phase = phase;
    s.active_side = s.sides.iter().position(|x| x.name == side).unwrap();
    (s, registry.get("volley-fire").unwrap())
}

fn vf(name: &str, params: serde_json::Value) -> Command {
    Command::VolleyFire(
        spotter::rules::volley_fire::action::Action::parse(name, &params).expect(name),
    )
}

#[test]
fn a_volley_fire_unit_does_not_melee_itself() {
    let (s, r) = volley_fire(2, "Sudanese");
    let own = vf(
        "melee",
        json!({"attacker": "1st Section", "defender": "1st Section"}),
    );
    assert_eq!(refusal_kind(r.check(&s, &own)), RefusalKind::NotAnEnemy);
    let friend = vf(
        "melee",
        json!({"attacker": "1st Section", "defender": "Gardner"}),
    );
    assert_eq!(refusal_kind(r.check(&s, &friend)), RefusalKind::NotAnEnemy);
}

#[test]
fn a_volley_fire_unit_fires_once_a_phase() {
    let (s, r) = volley_fire(1, "Sudanese");
    let fire = vf(
        "fire",
        json!({"unit": "1st Section", "target": "Hadendowa"}),
    );
    r.check(&s, &fire).expect("the first volley");
    let events = r
        .resolve(&s, &fire, &mut TypedDice::new(std::iter::repeat_n(3, 200)))
        .unwrap();
    let mut after = s.clone();
    for e in &events {
        after.apply(e);
    }
    assert_eq!(
        refusal_kind(r.check(&after, &fire)),
        RefusalKind::AlreadyActed
    );
}

#[test]
fn a_volley_fire_move_to_a_point_off_the_table_is_refused_before_the_dice() {
    let (s, r) = volley_fire(0, "Sudanese");
    for to in [[1e308, 12.0], [36.0, -1e308], [-5.0, 12.0]] {
        let mv = vf("move", json!({"unit": "1st Section", "to_in": to}));
        assert_eq!(
            refusal_kind(r.check(&s, &mv)),
            RefusalKind::OffTable,
            "{to:?}"
        );
        // No dice are rolled for it either.
        let mut dice = TypedDice::default();
        assert!(r.resolve(&s, &mv, &mut dice).is_err(), "{to:?}");
    }
    let form = vf(
        "form",
        json!({"unit": "1st Section", "formation": "line", "to_in": [1e308, 1.0]}),
    );
    assert_eq!(refusal_kind(r.check(&s, &form)), RefusalKind::OffTable);
}

#[test]
fn a_soldiers_in_time_move_off_the_table_is_refused() {
    let figs = sit::fig(
        "A",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"status = { order = "forward-march" }"#,
    ) + &sit::fig("B", "Black", 40.0, 40.0, 270.0, "");
    let s = sit::at_phase(sit::state(&figs, "", ""), "movement-men", 0);
    let to = |p: [f64; 2]| sit::action("move", json!({ "figure": "A", "path_in": [p] }));
    sit::rules()
        .check(&s, &to([12.0, 10.0]))
        .expect("a move on the table");
    for p in [[1e308, 10.0], [10.0, -0.5]] {
        let why = sit::refused(&s, &to(p), RefusalKind::OffTable);
        assert!(why.contains("off the table"), "{why}");
    }
}

#[test]
fn an_enemy_on_an_activation_list_is_refused_by_name() {
    let figs = sit::fig("Lt", "Red", 10.0, 10.0, 90.0, "leader = true")
        + &sit::fig("Pte", "Red", 12.5, 10.0, 90.0, "")
        + &sit::fig("Enemy", "Black", 10.0, 20.0, 270.0, "");
    let s = sit::at_phase(sit::state(&figs, "", ""), "command", 0);
    let act = sit::action(
        "activate",
        json!({ "leader": "Lt", "order": "forward-march", "men": ["Pte", "Enemy"] }),
    );
    let why = sit::refused(&s, &act, RefusalKind::CannotDo);
    assert!(why.contains("Enemy"), "{why}");
}

#[test]
fn a_volley_with_no_men_is_refused() {
    let figs = sit::fig("A", "Red", 10.0, 10.0, 90.0, "loaded = true")
        + &sit::fig("B", "Black", 10.0, 20.0, 270.0, "");
    let s = sit::at_phase(sit::state(&figs, "", ""), "shooting", 0);
    let volley = sit::action("volley", json!({ "men": [] }));
    let why = sit::refused(&s, &volley, RefusalKind::Malformed);
    assert!(why.contains("men"), "{why}");
}

#[test]
fn a_mount_speed_for_a_man_on_foot_is_refused() {
    let mut s = state_from(&fig("Tommy", "British", "revolver", 3, 10.0, 10.0, ""));
    at_phase(&mut s, "move", "Tommy");
    let mv = |level| {
        Command::StandTo(St::Move {
            figure: id(&s, "Tommy"),
            path_in: vec![Point2::new(12.0, 10.0)],
            facing_deg: 0.0,
            pace: Pace::Walk,
            mount_level: level,
        })
    };
    assert!(rules().check(&s, &mv(None)).is_ok());
    assert_eq!(
        refusal_kind(rules().check(&s, &mv(Some(99)))),
        RefusalKind::CannotDo
    );
    // A rider asking for a speed the tables do not have.
    let mut s = state_from(&fig(
        "Rider",
        "British",
        "revolver",
        3,
        10.0,
        10.0,
        "base = \"mounted\"\nmount_speed = \"walk\"",
    ));
    at_phase(&mut s, "move", "Rider");
    let ride = Command::StandTo(St::Move {
        figure: id(&s, "Rider"),
        path_in: vec![Point2::new(11.0, 10.0)],
        facing_deg: 0.0,
        pace: Pace::Walk,
        mount_level: Some(99),
    });
    assert_eq!(
        refusal_kind(rules().check(&s, &ride)),
        RefusalKind::Movement
    );
}
