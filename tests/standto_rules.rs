//! Every Stand To! number that RULES.md lists, as a test.

use crate::common::*;
use approx::assert_relative_eq;
use nalgebra::Point2;
use spotter::core::RefusalKind;
use spotter::game::{Command, Event, Game, GameState, Pace};
use spotter::geometry::Scale;
use spotter::rules::RuleSet;
use spotter::rules::dice::TypedDice;
use spotter::rules::stand_to::action::{Action as St, AimUse, FireMode, OrderVia};
use spotter::rules::stand_to::event::Event as StandToEvent;
use spotter::rules::stand_to::status::now;
use spotter::rules::stand_to::{
    FireSituation, MeleeSide, SaveSituation, Wound, fire_outcome, melee_outcome, save_number,
};

fn run(
    state: &GameState,
    cmd: Command,
    faces: &[u32],
) -> Result<Vec<Event>, spotter::rules::RuleError> {
    rules().resolve(state, &cmd, &mut TypedDice::new(faces.iter().copied()))
}

fn wound_of(events: &[Event], who: spotter::game::FigureId) -> Option<Wound> {
    events.iter().rev().find_map(|e| match e {
        Event::Wounded {
            figure,
            wound,
            mount: false,
        } if *figure == who => Some(*wound),
        _ => None,
    })
}

fn fire_summary(events: &[Event]) -> (String, u32, u32, bool, bool) {
    events
        .iter()
        .find_map(|e| match e {
            Event::StandTo(StandToEvent::FireResolved {
                band,
                needed,
                save,
                on_target,
                saved,
                ..
            }) => Some((band.clone(), *needed, *save, *on_target, *saved)),
            _ => None,
        })
        .expect("a fire result")
}

// ---- Scale and turn order ----

#[test]
fn scale_half_inch_is_a_yard_and_54mm_doubles_every_distance() {
    let r = rules();
    assert_relative_eq!(r.data.scale.inches_per_scale_yard, 0.5);
    assert_relative_eq!(Scale::Mm25.table_in_per_yard(), 0.5);
    assert_relative_eq!(Scale::Mm54.table_in_per_yard(), 1.0);
    assert_relative_eq!(Scale::Mm54.table_from_rule_in(r.data.orders.shout_in), 24.0);
    // A shout reaches 20 table inches on a 54 mm table, not on a 25 mm one.
    let body = format!(
        "{}{}",
        sgt(10.0, 10.0),
        fig("Pte", "British", "breech-loading-rifle", 3, 30.0, 10.0, "")
    );
    for (header, heard) in [("scale = \"25mm\"", false), ("scale = \"54mm\"", true)] {
        let mut s = state_with_header(header, &body);
        at_phase(&mut s, "non-combat", "Sgt");
        let ev = run(
            &s,
            Command::StandTo(St::Order {
                giver: id(&s, "Sgt"),
                to: vec![id(&s, "Pte")],
                order: "fire at will".into(),
                via: OrderVia::Shout,
            }),
            &[],
        )
        .unwrap();
        let got = ev.iter().any(
            |e| matches!(e, Event::StandTo(StandToEvent::OrderGiven { to, .. }) if !to.is_empty()),
        );
        assert_eq!(got, heard, "{header}");
    }
}

#[test]
fn turn_order_phases_and_british_first() {
    let r = rules();
    assert_eq!(
        r.data.turn.phases,
        [
            "non-combat",
            "fire",
            "melee",
            "move",
            "observe",
            "reactions"
        ]
    );
    // Natives are listed first in the file; the British still move first.
    let s = state_from(&format!(
        "{}{}",
        fig("Warrior", "Natives", "thrown-spear", 3, 50.0, 50.0, ""),
        tommy(3, 10.0, 10.0, "")
    ));
    assert_eq!(s.sides[s.active_side].name, "British");
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    for _ in 0..6 {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    assert_eq!(g.state().sides[g.state().active_side].name, "Natives");
    assert_eq!((g.state().turn, g.state().phase), (1, 0));
    for _ in 0..6 {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    assert_eq!(g.state().sides[g.state().active_side].name, "British");
    assert_eq!(g.state().turn, 2);
}

// ---- Experience ----

#[test]
fn experience_numbers_and_edge_colours() {
    use spotter::game::SideKind::{European, Native};
    let r = rules();
    let name = |n, k| r.data.level(n, k).unwrap().name.clone();
    assert_eq!(name(1, European), "novice");
    for n in 2..=4 {
        assert_eq!(name(n, European), "trained");
        assert_eq!(name(n, Native), "trained");
    }
    assert_eq!(name(5, Native), "veteran");
    assert_eq!(name(6, European), "hero");
    assert_eq!(name(6, Native), "fanatic");
    let edge = |n, k| r.data.level(n, k).unwrap().edge.clone();
    assert_eq!(
        (
            edge(1, European),
            edge(3, European),
            edge(5, European),
            edge(6, European),
            edge(6, Native)
        ),
        (
            "green".into(),
            "white".into(),
            "blue".into(),
            "red".into(),
            "red".into()
        )
    );
}

#[test]
fn starting_experience_is_one_die_with_minus_one_for_green_units() {
    let r = rules();
    let mut d = TypedDice::new([4, 4, 1, 6]);
    assert_eq!(r.starting_experience(&mut d, false).unwrap().0, 4);
    assert_eq!(r.starting_experience(&mut d, true).unwrap().0, 3);
    assert_eq!(
        r.starting_experience(&mut d, true).unwrap().0,
        1,
        "never below novice"
    );
    assert_eq!(r.starting_experience(&mut d, false).unwrap().0, 6);
}

#[test]
fn a_survivor_who_rolls_above_his_number_gains_one() {
    let s = state_from(&fig(
        "Novice",
        "British",
        "breech-loading-rifle",
        1,
        10.0,
        10.0,
        "",
    ));
    let n = id(&s, "Novice");
    let ev = run(&s, Command::StandTo(St::Advance { figure: n }), &[2]).unwrap();
    assert!(ev.contains(&Event::StandTo(StandToEvent::Experience {
        figure: n,
        number: 2
    })));
    let ev = run(&s, Command::StandTo(St::Advance { figure: n }), &[1]).unwrap();
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::Experience { .. })))
    );
    let s4 = state_from(&fig(
        "Old",
        "British",
        "breech-loading-rifle",
        4,
        10.0,
        10.0,
        "",
    ));
    let ev = run(
        &s4,
        Command::StandTo(St::Advance {
            figure: id(&s4, "Old"),
        }),
        &[4],
    )
    .unwrap();
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::Experience { .. }))),
        "4 is not above 4"
    );
}

// ---- The dragoon example ----

fn dragoon() -> GameState {
    let mut s =
        spotter::game::Scenario::load(std::path::Path::new("scenarios/dragoon.toml"), &registry())
            .unwrap()
            .state;
    at_phase(&mut s, "fire", "Trooper Hobbs");
    s
}

fn dragoon_fire(faces: &[u32]) -> (GameState, Vec<Event>) {
    let s = dragoon();
    let cmd = Command::StandTo(St::Fire {
        shooter: id(&s, "Trooper Hobbs"),
        target: id(&s, "Hadendowa warrior"),
        mode: FireMode::Aimed,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: false,
    });
    let ev = run(&s, cmd, faces).unwrap();
    (s, ev)
}

#[test]
fn dragoon_carbine_at_18_in_is_medium_range_8_to_hit_native_saves_on_2() {
    let (_, ev) = dragoon_fire(&[4, 6, 4]);
    let (band, needed, save, _, _) = fire_summary(&ev);
    assert_eq!(band, "medium");
    assert_eq!(needed, 8);
    assert_eq!(save, 2);
}

#[test]
fn dragoon_white_10_coloured_4_is_a_hit_and_even_is_a_light_wound() {
    let (s, ev) = dragoon_fire(&[4, 6, 4]);
    let (_, _, _, on, saved) = fire_summary(&ev);
    assert!(on && !saved);
    assert_eq!(
        wound_of(&ev, id(&s, "Hadendowa warrior")),
        Some(Wound::Light)
    );
}

#[test]
fn dragoon_double_5_kills() {
    let (s, ev) = dragoon_fire(&[5, 5, 4]);
    assert_eq!(
        wound_of(&ev, id(&s, "Hadendowa warrior")),
        Some(Wound::Killed)
    );
}

#[test]
fn dragoon_saving_roll_1_or_2_misses_because_of_movement() {
    for c in [1, 2] {
        let (s, ev) = dragoon_fire(&[4, 6, c]);
        let (_, _, _, on, saved) = fire_summary(&ev);
        assert!(on && saved);
        assert_eq!(wound_of(&ev, id(&s, "Hadendowa warrior")), None);
    }
    let (_, ev) = dragoon_fire(&[3, 4, 6]);
    assert!(!fire_summary(&ev).3, "7 is off target");
}

#[test]
fn note_1_saved_doubles_still_cause_a_light_wound() {
    let (s, ev) = dragoon_fire(&[5, 5, 2]);
    assert_eq!(
        wound_of(&ev, id(&s, "Hadendowa warrior")),
        Some(Wound::Light)
    );
}

// ---- Damage ----

#[test]
fn damage_for_men_doubles_kill_odd_serious_even_light() {
    let r = rules();
    let men = &r.data.damage.men;
    assert_eq!(men.wound(3, 3), Wound::Killed);
    assert_eq!(men.wound(4, 5), Wound::Serious);
    assert_eq!(men.wound(4, 6), Wound::Light);
    // Melee: 11 is serious, 12 fatal.
    assert_eq!(men.wound(5, 6), Wound::Serious);
    assert_eq!(men.wound(6, 6), Wound::Killed);
    // The melee example calls a Pawnee 6 "serious"; the rule says a 6 that
    // is not a double is light (and 3+3 kills). The rule wins.
    assert_eq!(men.wound(2, 4), Wound::Light);
    assert!(
        std::fs::read_to_string("scenarios/rules/stand-to.toml")
            .unwrap()
            .contains("Pawnee 6")
    );
}

#[test]
fn damage_for_mounts_doubles_fatal_even_serious_odd_light() {
    let r = rules();
    let m = &r.data.damage.mounts;
    assert_eq!(m.wound(2, 2), Wound::Killed);
    assert_eq!(m.wound(2, 4), Wound::Serious);
    assert_eq!(m.wound(2, 5), Wound::Light);
}

// ---- Melee ----

/// The melee example: the Pawnee charges the trooper and makes his
/// immediate attack ("A figure gets an immediate hand-to-hand attack when
/// it charges to within one inch of an enemy figure"): the scenario's
/// Pawnee, put back 4.5 in, charges to his place in the file.
fn pawnee() -> GameState {
    let mut s =
        spotter::game::Scenario::load(std::path::Path::new("scenarios/pawnee.toml"), &registry())
            .unwrap()
            .state;
    at_phase(&mut s, "move", "Pawnee brave");
    let p = id(&s, "Pawnee brave");
    let contact = s.figures[p.index()].placement.center_in_table;
    s.figures[p.index()].placement.center_in_table = Point2::new(contact.x, contact.y + 4.5);
    s.figures[p.index()].rules.stand_to_mut().moved = None;
    let charge = Command::StandTo(St::Move {
        figure: p,
        path_in: vec![contact],
        facing_deg: 270.0,
        pace: Pace::Charge,
        mount_level: None,
    });
    for e in run(&s, charge, &[]).expect("the Pawnee charges") {
        s.apply(&e);
    }
    s
}

#[test]
fn melee_example_pawnee_plus_3_trooper_plus_2() {
    let s = pawnee();
    let (p, t) = (id(&s, "Pawnee brave"), id(&s, "Trooper Kelly"));
    let melee = |faces: &[u32]| {
        run(
            &s,
            Command::StandTo(St::Melee {
                attackers: vec![p],
                defenders: vec![t],
            }),
            faces,
        )
        .unwrap()
    };
    // Pawnee rolls 6 -> 9. Trooper rolls 5 -> 7: the trooper is wounded.
    let ev = melee(&[2, 4, 1, 4]);
    assert_eq!(melee_totals(&ev), (9, 7));
    assert!(wound_of(&ev, t).is_some() && wound_of(&ev, p).is_none());
    // Trooper rolls 6 -> 8: within one point, nobody is wounded.
    let ev = melee(&[2, 4, 2, 4]);
    assert_eq!(melee_totals(&ev), (9, 8));
    assert!(wound_of(&ev, t).is_none() && wound_of(&ev, p).is_none());
    // Trooper rolls 9 -> 11: two points higher, the Pawnee is wounded.
    let ev = melee(&[2, 4, 4, 5]);
    assert!(wound_of(&ev, p).is_some() && wound_of(&ev, t).is_none());
    // The wound comes from the unmodified roll: the Pawnee's 2+4 is light.
    let ev = melee(&[2, 4, 1, 4]);
    assert_eq!(wound_of(&ev, t), Some(Wound::Light));
}

#[test]
fn melee_modifiers_charging_spear_shield_sabre() {
    let r = rules();
    assert_eq!(r.data.melee.charging, 1);
    assert_eq!(r.data.melee.shield, 1);
    assert_eq!(r.data.melee_weapon("spear-bayonet").unwrap().modifier, 1);
    assert_eq!(r.data.melee_weapon("sword-sabre").unwrap().modifier, 2);
    assert_eq!(r.data.melee.wound_margin, 2);
}

#[test]
fn two_and_three_never_wound_eleven_and_twelve_always_do_evaders_only_on_them() {
    let r = rules();
    let big = MeleeSide {
        modifier: 20,
        evading: false,
    };
    let none = MeleeSide::default();
    // Unmodified 3 with +20 against a 2: no effect.
    assert_eq!(melee_outcome(&r.data, &big, &none, [1, 2], [1, 1]).1, None);
    // 11 against a far higher total still wounds (serious), 12 kills.
    let (_, d) = melee_outcome(&r.data, &none, &big, [5, 6], [6, 6]);
    assert_eq!(d, Some(Wound::Serious));
    let (_, d) = melee_outcome(&r.data, &none, &big, [6, 6], [6, 6]);
    assert_eq!(d, Some(Wound::Killed));
    // An evading figure 5 points up does not wound; with 11 he does.
    let ev = MeleeSide {
        modifier: 0,
        evading: true,
    };
    assert_eq!(melee_outcome(&r.data, &ev, &none, [4, 6], [1, 4]).1, None);
    assert!(
        melee_outcome(&r.data, &ev, &none, [5, 6], [1, 4])
            .1
            .is_some()
    );
}

#[test]
fn outnumbered_figure_meets_all_with_one_roll_and_hurts_only_the_worst() {
    let mut s = state_from(&format!(
        "{}{}{}",
        tommy(3, 50.0, 50.0, ""),
        fig("A", "Natives", "thrown-spear", 3, 51.5, 50.0, ""),
        fig("B", "Natives", "thrown-spear", 3, 50.0, 51.5, "")
    ));
    at_phase(&mut s, "melee", "Tommy");
    let (t, a, b) = (id(&s, "Tommy"), id(&s, "A"), id(&s, "B"));
    // Tommy (sabre +2) rolls 4+5 = 11... use 4+4 = 8 -> 10; A rolls 3 (+1) = 4, B rolls 6 (+1) = 7.
    let ev = run(
        &s,
        Command::StandTo(St::Melee {
            attackers: vec![t],
            defenders: vec![a, b],
        }),
        &[4, 4, 1, 2, 2, 4],
    )
    .unwrap();
    assert!(wound_of(&ev, a).is_some(), "A has the worst roll");
    assert!(
        wound_of(&ev, b).is_none(),
        "B is not the worst, though Tommy beat him by 3"
    );
    // Ties for worst all suffer.
    let ev = run(
        &s,
        Command::StandTo(St::Melee {
            attackers: vec![t],
            defenders: vec![a, b],
        }),
        &[4, 4, 1, 3, 2, 2],
    )
    .unwrap();
    assert!(wound_of(&ev, a).is_some() && wound_of(&ev, b).is_some());
}

#[test]
fn melee_engagement_is_within_one_inch() {
    let r = rules();
    assert_relative_eq!(r.data.melee.engagement_in, 1.0);
    for (gap, ok) in [(0.9, true), (1.2, false)] {
        // Foot bases are 1 in across: centres are gap + 1 apart.
        let mut s = state_from(&format!(
            "{}{}",
            tommy(3, 50.0, 50.0, ""),
            fig("A", "Natives", "thrown-spear", 3, 51.0 + gap, 50.0, "")
        ));
        at_phase(&mut s, "melee", "Tommy");
        let c = Command::StandTo(St::Melee {
            attackers: vec![id(&s, "Tommy")],
            defenders: vec![id(&s, "A")],
        });
        assert_eq!(r.check(&s, &c).is_ok(), ok, "gap {gap}");
    }
}

// ---- Orders ----

fn order_state(dx: f64, wall: bool) -> GameState {
    let terrain = if wall {
        "[[terrain]]\nname = \"house\"\nkinds = [\"blocking\"]\npolygon_in = [[40.0, 5.0], [45.0, 5.0], [45.0, 15.0], [40.0, 15.0]]\n"
    } else {
        ""
    };
    let mut s = state_from(&format!(
        "{terrain}{}{}{}",
        sgt(10.0, 10.0),
        fig(
            "Pte",
            "British",
            "breech-loading-rifle",
            3,
            10.0 + dx,
            10.0,
            ""
        ),
        bugler()
    ));
    at_phase(&mut s, "non-combat", "Sgt");
    s
}

fn heard(s: &GameState, via: OrderVia) -> bool {
    let ev = run(
        s,
        Command::StandTo(St::Order {
            giver: id(s, "Sgt"),
            to: vec![id(s, "Pte")],
            order: "advance".into(),
            via,
        }),
        &[],
    )
    .unwrap();
    ev.iter()
        .any(|e| matches!(e, Event::StandTo(StandToEvent::OrderGiven { to, .. }) if !to.is_empty()))
}

#[test]
fn shouted_orders_carry_12_in() {
    assert_relative_eq!(rules().data.orders.shout_in, 12.0);
    assert!(heard(&order_state(11.5, false), OrderVia::Shout));
    assert!(!heard(&order_state(12.5, false), OrderVia::Shout));
}

#[test]
fn hand_signals_carry_100_in_with_line_of_sight() {
    assert_relative_eq!(rules().data.orders.hand_signal_in, 100.0);
    assert!(heard(&order_state(99.0, false), OrderVia::HandSignal));
    assert!(!heard(&order_state(101.0, false), OrderVia::HandSignal));
    assert!(
        !heard(&order_state(99.0, true), OrderVia::HandSignal),
        "a house blocks the signal"
    );
}

#[test]
fn musician_calls_are_obeyed_the_turn_after() {
    let s = order_state(30.0, false);
    let (pte, bugler) = (id(&s, "Pte"), id(&s, "Bugler"));
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    g.execute(
        Command::StandTo(St::Order {
            giver: id(g.state(), "Sgt"),
            to: vec![pte],
            order: "retire".into(),
            via: OrderVia::Musician { musician: bugler },
        }),
        &mut TypedDice::default(),
    )
    .unwrap();
    let order = |g: &Game| {
        now(g.state(), g.state().figure(pte).unwrap())
            .order()
            .map(str::to_owned)
    };
    assert_eq!(order(&g), None, "not this turn");
    while g.state().turn == 1 {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    assert_eq!(order(&g).as_deref(), Some("retire"));
}

// ---- Scouts and guns ----

#[test]
fn scouts_observe_a_3_in_circle() {
    assert_relative_eq!(rules().data.spotting.scout_radius_in, 3.0);
    for (dx, seen) in [(2.8, true), (3.3, false)] {
        let s = scout_and_hidden(30.0 + dx);
        let ev = run(
            &s,
            Command::StandTo(St::Spot {
                scout: id(&s, "Scout"),
                center_in: Point2::new(30.0, 30.0),
            }),
            &[6, 6],
        )
        .unwrap();
        assert_eq!(
            ev.iter()
                .any(|e| matches!(e, Event::StandTo(StandToEvent::Spotted { .. }))),
            seen,
            "{dx}"
        );
    }
}

fn gun_state(gunner_side: &str, target_dx: f64) -> GameState {
    let other = if gunner_side == "British" {
        "Natives"
    } else {
        "British"
    };
    let gun = if gunner_side == "British" {
        "nordenfelt-gun"
    } else {
        "native-cannon"
    };
    let mut s = state_from(&format!(
        "{}{}",
        fig(
            "Gun",
            gunner_side,
            gun,
            3,
            50.0,
            10.0,
            "loaded = true\nammo = 5\nfacing_deg = 90.0"
        ),
        fig("T", other, "revolver", 3, 50.0 + target_dx, 40.0, "")
    ));
    at_phase(&mut s, "fire", "Gun");
    s
}

#[test]
fn guns_fire_a_15_degree_cone_hitting_on_6_british_7_native() {
    let r = rules();
    assert_relative_eq!(r.data.artillery.cone_deg, 15.0);
    assert_eq!(
        (r.data.artillery.hit_european, r.data.artillery.hit_native),
        (6, 7)
    );
    let p_on = |s: &GameState| {
        r.odds(s, &Command::StandTo(St::FireGun { gun: id(s, "Gun") }))
            .unwrap()[0]
            .p
    };
    assert_relative_eq!(p_on(&gun_state("British", 0.0)), 26.0 / 36.0);
    assert_relative_eq!(p_on(&gun_state("Natives", 0.0)), 21.0 / 36.0);
    // 30 in ahead: 3 in to the side is 5.7 degrees (inside 7.5), 5 in is 9.5 (outside).
    let in_cone = |dx: f64| {
        let s = gun_state("British", dx);
        let ev = run(
            &s,
            Command::StandTo(St::FireGun { gun: id(&s, "Gun") }),
            &[3, 4, 6],
        )
        .unwrap();
        ev.iter().any(
            |e| matches!(e, Event::Rolled { purpose, .. } if purpose == "save against the gun"),
        )
    };
    assert!(in_cone(3.0));
    assert!(!in_cone(5.0));
    // British gunners: 5 is off target.
    let s = gun_state("British", 0.0);
    let ev = run(
        &s,
        Command::StandTo(St::FireGun { gun: id(&s, "Gun") }),
        &[2, 3],
    )
    .unwrap();
    assert!(
        !ev.iter().any(
            |e| matches!(e, Event::Rolled { purpose, .. } if purpose == "save against the gun")
        )
    );
}

// ---- Aiming, saves, rates of fire ----

fn sit(save: u32, leader: bool, aim: bool) -> FireSituation {
    FireSituation {
        needed: 8,
        ability: 0,
        save,
        leader,
        aim_bonus: aim,
        aim_use: AimUse::Best,
        note1: true,
        mounted_target: false,
        at_mount: false,
    }
}

#[test]
fn aiming_bonus_goes_to_hit_or_save_after_the_roll() {
    let r = rules();
    assert_eq!(r.data.fire.aiming_bonus, 1);
    // 7 against 8+: the bonus makes it on target.
    let o = fire_outcome(&r.data, &sit(2, false, true), 3, 4, 6, None);
    assert!(o.on_target && o.aim_bonus == Some(AimUse::Hit));
    // 9 is on target anyway; the bonus goes on the save: a 2 becomes 3 and fails.
    let o = fire_outcome(&r.data, &sit(2, false, true), 4, 5, 2, None);
    assert!(o.on_target && !o.saved && o.aim_bonus == Some(AimUse::Save));
    // Without the bonus the 2 saves.
    assert!(fire_outcome(&r.data, &sit(2, false, false), 4, 5, 2, None).saved);
}

#[test]
fn a_leader_always_saves_on_1() {
    let r = rules();
    // Save 0 (standing in the open), aiming bonus on the save: a 1 still saves a leader.
    let o = fire_outcome(&r.data, &sit(0, true, true), 4, 5, 1, None);
    assert!(o.saved);
    let o = fire_outcome(&r.data, &sit(0, false, true), 4, 5, 1, None);
    assert!(!o.saved);
}

#[test]
fn soft_cover_and_leader_bonus_add_only_the_leader_bonus_adds_to_hard_cover() {
    let r = rules();
    let s = &r.data.saves;
    let n = |x: SaveSituation| save_number(s, &x);
    let walk = SaveSituation {
        movement: s.walking,
        ..Default::default()
    };
    assert_eq!(
        n(SaveSituation {
            soft_cover: true,
            ..walk
        }),
        s.walking + s.soft_cover
    );
    assert_eq!(
        n(SaveSituation {
            soft_cover: true,
            leader: true,
            ..walk
        }),
        s.walking + s.soft_cover + s.leader_bonus
    );
    assert_eq!(
        n(SaveSituation {
            hard_cover: true,
            leader: true,
            ..Default::default()
        }),
        s.hard_cover + s.leader_bonus
    );
    // Movement does not add to hard cover: the better of the two counts.
    assert_eq!(
        n(SaveSituation {
            movement: s.charging,
            hard_cover: true,
            ..Default::default()
        }),
        s.hard_cover.max(s.charging)
    );
    assert_eq!(s.charging, 2, "the charging native saves on 1-2");
}

#[test]
fn snapshots_use_revolver_ranges_and_revolver_ranges_are_halved() {
    let r = rules();
    let rev = r.data.weapon("revolver").unwrap();
    for rifle in [
        "breech-loading-rifle",
        "bolt-action-rifle",
        "lever-action-rifle",
        "breech-loading-carbine",
    ] {
        let w = r.data.weapon(rifle).unwrap();
        assert_eq!(
            r.band_edges(w, FireMode::Snap).unwrap(),
            rev.range_in,
            "{rifle}"
        );
    }
    assert_eq!(
        r.band_edges(rev, FireMode::Snap).unwrap(),
        rev.range_in.map(|x| x / 2.0)
    );
}

fn shots(weapon: &str, mode: FireMode, rapid: bool, loaded: bool) -> usize {
    let extra = if loaded { "loaded = true" } else { "" };
    let mut s = state_from(&format!(
        "{}{}",
        fig("Tommy", "British", weapon, 3, 10.0, 10.0, extra),
        fig("T", "Natives", "thrown-spear", 3, 16.0, 10.0, "")
    ));
    at_phase(&mut s, "fire", "Tommy");
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    let (me, t) = (id(g.state(), "Tommy"), id(g.state(), "T"));
    let mut n = 0;
    // Dice that miss (2 is off target) so the target stays up.
    loop {
        let r = g.execute(
            Command::StandTo(St::Fire {
                shooter: me,
                target: t,
                mode,
                rapid,
                aim_use: AimUse::Best,
                at_mount: false,
            }),
            &mut TypedDice::new([1, 1, 6]),
        );
        match r {
            Ok(_) => n += 1,
            Err(e) => {
                eprintln!("{weapon} {mode:?} rapid={rapid} loaded={loaded}: stops after {n}: {e}");
                break;
            }
        }
        assert!(n < 10);
    }
    n
}

#[test]
fn rates_of_fire_per_weapon() {
    // Breechloader: aimed only when loaded (load one turn, fire the next); one snapshot a turn.
    assert_eq!(
        shots("breech-loading-rifle", FireMode::Aimed, false, false),
        0
    );
    assert_eq!(
        shots("breech-loading-rifle", FireMode::Aimed, false, true),
        1
    );
    assert_eq!(
        shots("breech-loading-rifle", FireMode::Snap, false, false),
        1
    );
    // Bolt action: like a breechloader, but rapid fire gives an aimed shot a turn and two snapshots.
    assert_eq!(shots("bolt-action-rifle", FireMode::Aimed, false, false), 0);
    assert_eq!(shots("bolt-action-rifle", FireMode::Aimed, true, false), 1);
    assert_eq!(shots("bolt-action-rifle", FireMode::Snap, false, false), 1);
    assert_eq!(shots("bolt-action-rifle", FireMode::Snap, true, false), 2);
    // Lever action and revolver: one aimed shot a turn; two and three snapshots.
    assert_eq!(
        shots("lever-action-rifle", FireMode::Aimed, false, false),
        1
    );
    assert_eq!(shots("lever-action-rifle", FireMode::Snap, false, false), 2);
    assert_eq!(shots("revolver", FireMode::Aimed, false, false), 1);
    assert_eq!(shots("revolver", FireMode::Snap, false, false), 3);
}

// ---- Movement ----

fn mover(side: &str, extra: &str, terrain: &str) -> GameState {
    let weapon = if side == "British" {
        "breech-loading-rifle"
    } else {
        "thrown-spear"
    };
    let mut s = state_from(&format!(
        "{terrain}{}",
        fig("M", side, weapon, 3, 10.0, 10.0, extra)
    ));
    at_phase(&mut s, "move", "M");
    s
}

fn can_move(s: &GameState, path: &[(f64, f64)], pace: Pace, level: Option<u8>) -> bool {
    let c = Command::StandTo(St::Move {
        figure: id(s, "M"),
        path_in: path.iter().map(|&(x, y)| Point2::new(x, y)).collect(),
        facing_deg: 0.0,
        pace,
        mount_level: level,
    });
    rules().check(s, &c).is_ok()
}

#[test]
fn mounts_go_up_one_speed_or_down_two_and_canter_is_5_to_8_in() {
    let r = rules();
    let canter = r
        .data
        .mount
        .speed
        .iter()
        .find(|s| s.name == "canter")
        .unwrap();
    assert_eq!((canter.min_in, canter.max_in), (5.0, 8.0));
    let s = mover("British", "base = \"mounted\"\nmount_speed = \"trot\"", "");
    let lvl = |n: &str| {
        r.data
            .mount
            .speed
            .iter()
            .position(|s| s.name == n)
            .map(|i| i as u8)
    };
    assert!(
        can_move(&s, &[(16.0, 10.0)], Pace::Walk, lvl("canter")),
        "trot to canter, 6 in"
    );
    assert!(
        !can_move(&s, &[(14.0, 10.0)], Pace::Walk, lvl("canter")),
        "a canter moves at least 5 in"
    );
    assert!(
        !can_move(&s, &[(19.0, 10.0)], Pace::Walk, lvl("canter")),
        "a canter moves at most 8 in"
    );
    assert!(
        !can_move(&s, &[(20.0, 10.0)], Pace::Walk, lvl("gallop")),
        "trot to gallop is two levels up"
    );
    let g = mover(
        "British",
        "base = \"mounted\"\nmount_speed = \"gallop\"",
        "",
    );
    assert!(
        can_move(&g, &[(13.0, 10.0)], Pace::Walk, lvl("trot")),
        "gallop down two to trot"
    );
    assert!(
        !can_move(&g, &[(12.0, 10.0)], Pace::Walk, lvl("walk")),
        "gallop down three to walk"
    );
}

#[test]
fn a_gallop_turns_45_degrees_after_5_in() {
    let g = mover(
        "British",
        "base = \"mounted\"\nmount_speed = \"gallop\"",
        "",
    );
    let lvl = Some(3);
    let d45 = std::f64::consts::FRAC_1_SQRT_2 * 4.0;
    assert!(
        can_move(
            &g,
            &[(15.0, 10.0), (15.0 + d45, 10.0 + d45)],
            Pace::Walk,
            lvl
        ),
        "45 after 5 in"
    );
    assert!(
        !can_move(
            &g,
            &[
                (13.0, 10.0),
                (
                    13.0 + 6.0 * std::f64::consts::FRAC_1_SQRT_2,
                    10.0 + 6.0 * std::f64::consts::FRAC_1_SQRT_2
                )
            ],
            Pace::Walk,
            lvl
        ),
        "turning after 3 in"
    );
    assert!(
        !can_move(&g, &[(15.0, 10.0), (15.0, 14.0)], Pace::Walk, lvl),
        "90 degrees"
    );
}

#[test]
fn rough_ground_natives_lose_a_third_british_half() {
    let r = rules();
    let rough = "[[terrain]]\nname = \"scrub\"\nkinds = [\"rough\"]\npolygon_in = [[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]]\n";
    let bd = r.data.movement.european.doubletime;
    let nd = r.data.movement.native.doubletime;
    let b = mover("British", "", rough);
    assert!(can_move(
        &b,
        &[(10.0 + bd * 0.5 - 0.1, 10.0)],
        Pace::Doubletime,
        None
    ));
    assert!(!can_move(
        &b,
        &[(10.0 + bd * 0.5 + 0.1, 10.0)],
        Pace::Doubletime,
        None
    ));
    let n = mover("Natives", "", rough);
    assert!(can_move(
        &n,
        &[(10.0 + nd * 2.0 / 3.0 - 0.1, 10.0)],
        Pace::Doubletime,
        None
    ));
    assert!(!can_move(
        &n,
        &[(10.0 + nd * 2.0 / 3.0 + 0.1, 10.0)],
        Pace::Doubletime,
        None
    ));
}

#[test]
fn europeans_charge_at_most_5_turns_a_game() {
    let mut s = mover("British", "", "");
    s.figures[0].rules.stand_to_mut().charge_turns_used = 4;
    assert!(can_move(&s, &[(12.0, 10.0)], Pace::Charge, None));
    s.figures[0].rules.stand_to_mut().charge_turns_used = 5;
    assert!(!can_move(&s, &[(12.0, 10.0)], Pace::Charge, None));
    assert_eq!(rules().data.movement.european_charge_turns, 5);
}

#[test]
fn obstacles_stop_then_cross_then_move_away() {
    let wall = "[[terrain]]\nname = \"wall\"\nkinds = [\"obstacle\", \"hard-cover\"]\npolygon_in = [[12.0, 0.0], [12.5, 0.0], [12.5, 30.0], [12.0, 30.0]]\n";
    let s = mover("British", "", wall);
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    let m = id(g.state(), "M");
    let mv = |to: (f64, f64)| {
        Command::StandTo(St::Move {
            figure: m,
            path_in: vec![Point2::new(to.0, to.1)],
            facing_deg: 0.0,
            pace: Pace::Doubletime,
            mount_level: None,
        })
    };
    g.execute(mv((15.0, 10.0)), &mut TypedDice::default())
        .unwrap();
    assert_relative_eq!(
        g.state().figure(m).unwrap().placement.center_in_table.x,
        12.0,
        epsilon = 1e-9
    );
    assert_eq!(
        game_refusal_kind(g.check(&mv((13.0, 10.0)))),
        RefusalKind::Movement,
        "stopped this turn"
    );
    while g.state().turn == 1
        || g.state().sides[g.state().active_side].name != "British"
        || rules().data.turn.phases[g.state().phase] != "move"
    {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    assert_eq!(
        game_refusal_kind(g.check(&mv((18.0, 10.0)))),
        RefusalKind::Movement,
        "crossing places him just over"
    );
    g.execute(mv((13.0, 10.0)), &mut TypedDice::default())
        .unwrap();
    assert_eq!(
        game_refusal_kind(g.check(&mv((15.0, 10.0)))),
        RefusalKind::Movement,
        "moves away only the turn after"
    );
}

// ---- Reactions ----

#[test]
fn novice_leader_first_attack_9_or_more_makes_him_trained_3() {
    let s = state_from(&fig(
        "Lt",
        "British",
        "revolver",
        1,
        10.0,
        10.0,
        "rank = \"officer\"\nleader = true",
    ));
    let lt = id(&s, "Lt");
    let ev = run(
        &s,
        Command::StandTo(St::FirstAttack { leader: lt }),
        &[4, 5],
    )
    .unwrap();
    assert!(ev.contains(&Event::StandTo(StandToEvent::Experience {
        figure: lt,
        number: 3
    })));
    let ev = run(
        &s,
        Command::StandTo(St::FirstAttack { leader: lt }),
        &[4, 4],
    )
    .unwrap();
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::Experience { .. })))
    );
    let odds = rules()
        .odds(&s, &Command::StandTo(St::FirstAttack { leader: lt }))
        .unwrap();
    assert_relative_eq!(odds[0].p, 10.0 / 36.0);
}

#[test]
fn close_miss_pins_a_covered_target_unless_veteran() {
    for (exp, pinned) in [(3, true), (5, false)] {
        let mut s = state_from(&format!(
            "{}{}",
            fig("Tommy", "British", "lever-action-rifle", 3, 10.0, 10.0, ""),
            fig(
                "T",
                "Natives",
                "thrown-spear",
                exp,
                20.0,
                10.0,
                "prone = true"
            )
        ));
        at_phase(&mut s, "fire", "Tommy");
        // 4+4... use 3+5 = 8 on target at short? 10 in is medium (8+); save die 1 saves.
        let ev = run(
            &s,
            Command::StandTo(St::Fire {
                shooter: id(&s, "Tommy"),
                target: id(&s, "T"),
                mode: FireMode::Aimed,
                rapid: false,
                aim_use: AimUse::Best,
                at_mount: false,
            }),
            &[3, 6, 1],
        )
        .unwrap();
        assert_eq!(
            ev.iter()
                .any(|e| matches!(e, Event::StandTo(StandToEvent::Idle { .. }))),
            pinned,
            "experience {exp}"
        );
    }
}

// ---- Aiming takes a turn, target priority, preservation ----

#[test]
fn aiming_takes_a_turn_and_the_bonus_comes_with_the_next_shot() {
    let mut s = state_from(&format!(
        "{}{}",
        fig("Tommy", "British", "lever-action-rifle", 3, 10.0, 10.0, ""),
        fig("T", "Natives", "thrown-spear", 3, 30.0, 10.0, "")
    ));
    at_phase(&mut s, "fire", "Tommy");
    let (me, t) = (id(&s, "Tommy"), id(&s, "T"));
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    g.execute(
        Command::StandTo(St::Aim {
            figure: me,
            target: t,
        }),
        &mut TypedDice::default(),
    )
    .unwrap();
    let fire = Command::StandTo(St::Fire {
        shooter: me,
        target: t,
        mode: FireMode::Aimed,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: false,
    });
    assert_eq!(
        game_refusal_kind(g.check(&fire)),
        RefusalKind::AlreadyActed,
        "aiming without firing this turn"
    );
    while !(g.state().turn == 2 && g.state().active_side == 0 && g.state().phase == 1) {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    // 3+4 = 7 against 8+ at medium range: the aiming bonus makes it on target.
    let ev = g
        .execute(fire.clone(), &mut TypedDice::new([3, 4, 6]))
        .unwrap();
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::StandTo(StandToEvent::FireResolved {
            on_target: true,
            aim_bonus: Some(AimUse::Hit),
            ..
        })
    )));
    assert!(
        !now(g.state(), g.state().figure(me).unwrap()).aim_ready(),
        "the bonus is lost once a shot is fired"
    );
}

#[test]
fn target_priority_nearest_danger_first() {
    let mut s = priority_state_from();
    at_phase(&mut s, "fire", "Tommy");
    let r = rules();
    assert_eq!(
        r.target_priority(&s, id(&s, "Tommy")),
        vec![id(&s, "Charger")]
    );
    // "Targets must be nominated according to the following priority":
    // Near is refused while the charger comes on.
    let r = run(
        &s,
        Command::StandTo(St::Fire {
            shooter: id(&s, "Tommy"),
            target: id(&s, "Near"),
            mode: FireMode::Aimed,
            rapid: false,
            aim_use: AimUse::Best,
            at_mount: false,
        }),
        &[1, 1, 6],
    );
    assert_eq!(refusal_kind(r), RefusalKind::NoOrder);
}

#[test]
fn preservation_points_break_morale_and_shed_1d6() {
    let mut s = state_with_header(
        "",
        &format!(
            "{}{}",
            fig("Tommy", "British", "lever-action-rifle", 3, 10.0, 10.0, ""),
            fig("T", "Natives", "thrown-spear", 3, 20.0, 10.0, "")
        ),
    );
    s.sides[1].preservation_limit = Some(2);
    at_phase(&mut s, "fire", "Tommy");
    let (me, t) = (id(&s, "Tommy"), id(&s, "T"));
    let ev = run(
        &s,
        Command::StandTo(St::Fire {
            shooter: me,
            target: t,
            mode: FireMode::Aimed,
            rapid: false,
            aim_use: AimUse::Best,
            at_mount: false,
        }),
        &[5, 5, 6],
    )
    .unwrap();
    let killed = rules().data.preservation.killed;
    assert!(ev.contains(&Event::StandTo(StandToEvent::Preservation {
        side: 1,
        points: killed,
        broken: killed > 2
    })));
    let mut g = Game::new(s, rules_arc(), None).unwrap();
    g.execute(
        Command::StandTo(St::Fire {
            shooter: me,
            target: t,
            mode: FireMode::Aimed,
            rapid: false,
            aim_use: AimUse::Best,
            at_mount: false,
        }),
        &mut TypedDice::new([5, 5, 6]),
    )
    .unwrap();
    assert!(spotter::rules::stand_to::status::side_st(&g.state().sides[1]).broken);
    // The broken side sheds in its own turn (its men out of sight: T is
    // down, nobody else is left).
    while g.state().active_side != 1 {
        g.execute(Command::EndPhase, &mut TypedDice::default())
            .unwrap();
    }
    let ev = g
        .execute(
            Command::StandTo(St::Shed { side: 1 }),
            &mut TypedDice::new([2]),
        )
        .unwrap();
    assert!(ev.contains(&Event::StandTo(StandToEvent::Preservation {
        side: 1,
        points: killed - 2,
        broken: killed - 2 > 2
    })));
    // Zareba: half the Dervishes may fall; 3 men x 1.5 gives a limit of 4.
    let z =
        spotter::game::Scenario::load(std::path::Path::new("scenarios/zareba.toml"), &registry())
            .unwrap()
            .state;
    let dervishes = z.sides.iter().find(|s| s.name == "Dervishes").unwrap();
    assert_eq!(dervishes.preservation_limit, Some(4));
}
