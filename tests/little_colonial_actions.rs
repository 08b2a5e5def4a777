//! Little Colonial Rules actions on the engine: the card in play as the
//! turn's phase check, three-rank fire, cavalry saves, roundshot line and
//! bounce, deviation, shrapnel, grapeshot, rally, reinforcements at the
//! reshuffle, the optional wounded rule, infantry and cavalry moves. Dice
//! are typed in; each outcome is the one the rule text gives for them.

use crate::common::little_colonial::*;
use crate::rule_actions::named;

use approx::assert_relative_eq;
use serde_json::json;
use spotter::core::RefusalKind;
use spotter::game::{Event, GameState};
use spotter::rules::little_colonial::engine::{side_st, st};
use spotter::rules::little_colonial::status::WoundKind;
use spotter::rules::little_colonial::{
    cavalry_volley_odds, close_combat_p, demoralised, gun_hit_p, struck_killed_p,
};
use spotter::rules::stand_to::Wound;

#[test]
fn every_action_needs_a_card_and_a_figure_acts_once_per_card() {
    let extra = lt()
        + LINE
        + &fig("Stray", "private", "Spanish", 40.0, 10.0, 90.0, "")
        + &fig("W1", "warrior", "Moros", 20.0, 20.0, 270.0, "");
    let mut s = state("", "", &extra);
    let fire = action(
        "fire",
        json!({ "firers": ["Line 1"], "target": "W1", "individual": true }),
    );
    assert!(refused(&s, &fire, RefusalKind::Cards).contains("no order card"));
    card(&mut s, "Lt");
    // 15 cm platoon officer: the stray 20 in away is outside it.
    let stray = action(
        "fire",
        json!({ "firers": ["Stray"], "target": "W1", "individual": true }),
    );
    assert!(refused(&s, &stray, RefusalKind::OutOfCommand).contains("command radius"));
    // Line 1 at 10 in = 25 cm: 6s hit; one die, a 2 misses.
    let (after, _) = run(&s, &fire, &[2]);
    assert!(refused(&after, &fire, RefusalKind::AlreadyActed).contains("acted on this card"));
    // The next card (a reshuffled deck, a new turn) lets him act again.
    let mut later = after.clone();
    later.turn += 1;
    assert!(rules().check(&later, &fire).is_ok());
}

#[test]
fn three_rank_fire_rolls_the_third_rank_apart_and_its_ones_hit_the_front() {
    let extra = lt() + LINE + &fig("W1", "warrior", "Moros", 20.0, 20.0, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Lt");
    let names: Vec<String> = (1..=6).map(|k| format!("Line {k}")).collect();
    let fire = action(
        "fire",
        json!({ "firers": names, "target": "W1", "formation": true }),
    );
    // Front two ranks: 4 dice (one 6); third rank: 2 dice (a 1 and a 6);
    // two hits, saves 1 and 6: one kill. The third rank's 1 hits the
    // second man of the front ranks.
    let (after, ev) = run(&s, &fire, &[6, 2, 3, 4, 1, 6, 1, 6, 2]);
    assert_eq!(named(&after, "W1").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Line 2").wound, Some(Wound::Killed));
    for n in ["Line 1", "Line 3", "Line 4", "Line 5", "Line 6"] {
        assert_eq!(named(&after, n).wound, None, "{n}");
    }
    let boxes: Vec<usize> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Rolled { purpose, dice, .. } if purpose.starts_with("fire") => Some(dice.len()),
            _ => None,
        })
        .collect();
    assert_eq!(boxes, [4, 2], "the third rank's dice are a separate box");
    // A fourth rank may not fire.
    let mut deep = s.clone();
    deep.units[0].frontage = 1;
    assert!(refused(&deep, &fire, RefusalKind::CannotDo).contains("fourth rank"));
}

#[test]
fn cavalry_saves_4_5_kill_the_horse_6_saves_both() {
    let rider = fig(
        "Rider",
        "warrior",
        "Moros",
        19.5,
        18.0,
        270.0,
        r#"status = { cavalry = "true", level = "regular" }"#,
    )
    .replace("base = \"foot\"", "base = \"mounted\"");
    let extra = lt() + LINE + &rider;
    let mut s = state("", "", &extra);
    card(&mut s, "Lt");
    // 8 in = 20 cm: 5s hit. Save die 4: the horse dies, the rider lives.
    let one = action(
        "fire",
        json!({ "firers": ["Line 1"], "target": "Rider", "individual": true }),
    );
    let (after, _) = run(&s, &one, &[5, 4]);
    let r = named(&after, "Rider");
    assert_eq!(r.wound, None);
    assert_eq!(r.mount_wound, Some(Wound::Killed));
    assert!(!r.mounted());
    // On foot now: a 2 does not save.
    let two = action(
        "fire",
        json!({ "firers": ["Line 2"], "target": "Rider", "individual": true }),
    );
    let (after, _) = run(&after, &two, &[6, 2]);
    assert_eq!(named(&after, "Rider").wound, Some(Wound::Killed));
    // Exact: at long range a die kills a rider 1/6 x 3/6, his horse 1/6 x 2/6.
    let o = cavalry_volley_odds(&data(), 3, 6, 0);
    assert_relative_eq!(o.p_die_kills, 1.0 / 12.0, epsilon = 1e-12);
    assert_relative_eq!(o.p_die_kills_horse, 1.0 / 18.0, epsilon = 1e-12);
    assert_relative_eq!(
        o.riders_killed[0],
        (11.0_f64 / 12.0).powi(3),
        epsilon = 1e-12
    );
}

/// The Gun's crew of five gunners.
const CREW: &str = r#"
[[unit]]
name = "Crew"
side = "Spanish"
formation = "loose"
frontage = 5
count = 5
x_in = 4.0
y_in = 36.0
facing_deg = 0.0
weapon = "none"
melee_weapon = "none"
experience = 2
status = { crew = "Gun", gunner = "true", level = "regular" }
"#;

fn gun_state() -> GameState {
    let extra = GUN.to_owned()
        + CREW
        + &fig("InLine", "warrior", "Moros", 12.0, 30.0, 180.0, "")
        + &fig("Bounce", "warrior", "Moros", 23.5, 30.0, 180.0, "")
        + &fig("Beyond", "warrior", "Moros", 27.0, 30.0, 180.0, "")
        + &fig("Off", "warrior", "Moros", 12.0, 32.0, 180.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Gun");
    s
}

#[test]
fn roundshot_hits_every_figure_on_its_line_and_bounce() {
    let s = gun_state();
    let shot = action(
        "artillery",
        json!({ "gun": "Gun", "ammo": "roundshot", "at_in": [22.0, 30.0] }),
    );
    // A 4 lands on the point (full crew); the bounce d6 = 1 carries it 5 cm
    // (2 in) on: InLine and Bounce are struck, Beyond and Off are not.
    // Saves: InLine 6, Bounce 1.
    let (after, _) = run(&s, &shot, &[4, 1, 6, 1]);
    assert_eq!(named(&after, "InLine").wound, None);
    assert_eq!(named(&after, "Bounce").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Beyond").wound, None);
    assert_eq!(named(&after, "Off").wound, None);
    // A miss deviates: 2 x 2.5 cm "over" (on along the line) to x = 24; a
    // bounce of 10 cm reaches x = 28 and strikes Beyond too.
    let (after, _) = run(&s, &shot, &[3, 2, 1, 2, 6, 6, 1]);
    assert_eq!(named(&after, "Beyond").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "InLine").wound, None);
    // The crew: two gunners short is -2: a 6 is needed.
    assert_relative_eq!(gun_hit_p(&data(), 0), 0.5, epsilon = 1e-12);
    assert_relative_eq!(gun_hit_p(&data(), -2), 1.0 / 6.0, epsilon = 1e-12);
    let mut short = s.clone();
    for f in short
        .figures
        .iter_mut()
        .filter(|f| f.name.starts_with("Crew"))
        .take(2)
    {
        f.wound = Some(Wound::Killed);
    }
    let ev = rules().odds(&short, &shot).expect("odds");
    let p = ev.iter().find(|o| o.name == "p_on_point").expect("p");
    assert_relative_eq!(p.p, 1.0 / 6.0, epsilon = 1e-12);
    // Napoleons do not fire shrapnel.
    let shrap = action(
        "artillery",
        json!({ "gun": "Gun", "ammo": "shrapnel", "at_in": [22.0, 30.0] }),
    );
    assert!(refused(&s, &shrap, RefusalKind::CannotDo).contains("does not fire shrapnel"));
}

#[test]
fn shrapnel_and_grapeshot() {
    let mut s = gun_state();
    s.figures
        .iter_mut()
        .find(|f| f.name == "Gun")
        .expect("gun")
        .weapon = "rifled-gun".into();
    let shrap = action(
        "artillery",
        json!({ "gun": "Gun", "ammo": "shrapnel", "at_in": [22.0, 30.0] }),
    );
    // On the point; only Bounce is within 5 cm: hit on 5, save 2.
    let (after, _) = run(&s, &shrap, &[4, 5, 2]);
    assert_eq!(named(&after, "Bounce").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "InLine").wound, None);
    assert_relative_eq!(
        struck_killed_p(&data(), 0.5, false),
        0.5 * 5.0 / 6.0,
        epsilon = 1e-12
    );
    // Grapeshot: 12 automatic hits at the nearest enemy (InLine, 25 cm),
    // saved on 6s, in a 12 cm half circle beyond him: Off (2 in to his
    // side) is in it. Two saves of 1 kill both; the rest are surplus.
    let s = gun_state();
    let grape = action(
        "artillery",
        json!({ "gun": "Gun", "ammo": "grapeshot", "target": "Beyond" }),
    );
    let mut faces = vec![1, 1];
    faces.extend([6; 10]);
    let (after, _) = run(&s, &grape, &faces);
    assert_eq!(named(&after, "InLine").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Off").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Bounce").wound, None);
}

#[test]
fn rally_holds_until_the_next_pile_runs_out() {
    let d = data();
    // The first pile (raw) is gone: raw troops are demoralised; rallied
    // then, they hold until the second pile goes.
    assert!(demoralised(&d, "raw", 1, None));
    assert!(!demoralised(&d, "regular", 1, None));
    assert!(!demoralised(&d, "raw", 1, Some(1)));
    assert!(demoralised(&d, "raw", 2, Some(1)));
    let extra = fig(
        "Datu",
        "chief",
        "Moros",
        20.0,
        20.0,
        270.0,
        r#"status = { level = "veteran", command = "chieftain" }"#,
    ) + &fig(
        "Raw",
        "warrior",
        "Moros",
        21.0,
        21.0,
        270.0,
        r#"status = { level = "raw" }"#,
    ) + &fig(
        "Far",
        "warrior",
        "Moros",
        30.0,
        20.0,
        270.0,
        r#"status = { level = "raw" }"#,
    ) + &fig("Spaniard", "private", "Spanish", 20.0, 10.0, 90.0, "");
    let mut s = state("", r#"chits = "0,5,5,5,5""#, &extra);
    card(&mut s, "Datu");
    let fire = action(
        "fire",
        json!({ "firers": ["Raw"], "target": "Spaniard", "individual": true }),
    );
    assert!(refused(&s, &fire, RefusalKind::Morale).contains("demoralised"));
    // Rally: half of 15 cm is 7.5 cm (3 in): Raw (1.4 in) is rallied, Far
    // (10 in) is not.
    let (after, _) = run(&s, &action("rally", json!({ "officer": "Datu" })), &[]);
    assert_eq!(st(named(&after, "Raw")).rallied_at, Some(1));
    assert_eq!(st(named(&after, "Far")).rallied_at, None);
    let mut next_card = after.clone();
    next_card.turn += 1;
    assert!(rules().check(&next_card, &fire).is_ok());
    // The second pile runs out: he routs again.
    next_card.sides[1].rules.little_colonial_mut().chits = Some(vec![0, 0, 5, 5, 5]);
    assert!(refused(&next_card, &fire, RefusalKind::Morale).contains("demoralised"));
}

#[test]
fn reinforcements_join_the_deck_and_the_chits_at_the_reshuffle() {
    let extra = fig(
        "Reyes",
        "officer",
        "Spanish",
        5.0,
        5.0,
        90.0,
        r#"status = { level = "veteran", command = "company-commander", arrives = "2" }"#,
    ) + r#"
[[unit]]
name = "Relief"
side = "Spanish"
formation = "line"
frontage = 8
count = 15
x_in = 10.0
y_in = 5.0
facing_deg = 90.0
weapon = "rifle"
melee_weapon = "bayonet"
experience = 2
status = { level = "regular", arrives = "2" }
"# + &fig("W", "warrior", "Moros", 20.0, 40.0, 270.0, "");
    let mut s = state(r#"chits = "0,3,3,3,3""#, "", &extra);
    let deck = s.deck("orders").expect("deck");
    assert!(!deck.draw.iter().any(|c| c.starts_with("Reyes")));
    s.decks[0].draw = vec!["end-of-turn".into()];
    let (after, _) = run(&s, &action("draw", json!({})), &[1]);
    assert_eq!(after.turn, 2);
    let deck = after.deck("orders").expect("deck");
    let reyes = deck.draw.iter().filter(|c| c.starts_with("Reyes#")).count();
    assert_eq!(reyes, 4, "a veteran officer's four cards");
    assert_eq!(st(named(&after, "Reyes")).arrives, None);
    // 16 men: 5 chits, one a pile, added to 0,3,3,3,3: the raw troops
    // are no longer demoralised.
    assert_eq!(chits(&after, 0), [1, 4, 4, 4, 4]);
    assert_eq!(side_st(&after, 0).empty_piles(), 0);
}

#[test]
fn optional_wounded_rule_turns_kills_into_wounds() {
    let extra = fig("A", "private", "Spanish", 20.0, 10.0, 90.0, "")
        + &fig("B", "warrior", "Moros", 20.0, 10.9, 270.0, "")
        + &fig("C", "warrior", "Moros", 21.0, 11.0, 270.0, "");
    let mut s = state(
        r#"wounded = "compassionate""#,
        r#"wounded = "ruthless""#,
        &extra,
    );
    card(&mut s, "A");
    let before = chits(&s, 1);
    // A wins 6 to 1; B's d6 is 5: hit in the leg, seriously wounded.
    let (after, _) = run(
        &s,
        &action("close-combat", json!({ "a": "A", "b": "B" })),
        &[6, 1, 5],
    );
    assert_eq!(named(&after, "B").wound, Some(Wound::Serious));
    assert_eq!(st(named(&after, "B")).wound, Some(WoundKind::Leg));
    assert_ne!(chits(&after, 1), before, "a serious wound costs a chit");
    // A 6: a light wound, he fights on, no chit lost.
    let (after, _) = run(
        &s,
        &action("close-combat", json!({ "a": "A", "b": "C" })),
        &[6, 1, 6],
    );
    assert_eq!(named(&after, "C").wound, Some(Wound::Light));
    assert_eq!(chits(&after, 1), before);
}

#[test]
fn infantry_and_cavalry_moves() {
    let jungle = r#"
[[terrain]]
name = "jungle"
kinds = ["rough"]
polygon_in = [[32.0, 15.0], [45.0, 15.0], [45.0, 25.0], [32.0, 25.0]]
[[terrain]]
name = "wall"
kinds = ["obstacle"]
polygon_in = [[32.0, 35.0], [32.2, 35.0], [32.2, 45.0], [32.0, 45.0]]
"#;
    let cav = fig(
        "Trooper",
        "private",
        "Spanish",
        5.0,
        50.0,
        0.0,
        r#"status = { cavalry = "true", level = "seasoned" }"#,
    )
    .replace("base = \"foot\"", "base = \"mounted\"");
    let extra = jungle.to_owned()
        + &fig(
            "Reg",
            "private",
            "Spanish",
            10.0,
            5.0,
            90.0,
            r#"status = { level = "regular" }"#,
        )
        + &fig(
            "Green",
            "private",
            "Spanish",
            5.0,
            5.0,
            90.0,
            r#"status = { level = "raw" }"#,
        )
        + &fig(
            "Jungle",
            "private",
            "Spanish",
            30.0,
            20.0,
            0.0,
            r#"status = { level = "veteran" }"#,
        )
        + &fig(
            "Waller",
            "private",
            "Spanish",
            30.0,
            40.0,
            0.0,
            r#"status = { level = "regular" }"#,
        )
        + &cav
        + &fig("W", "warrior", "Moros", 55.0, 55.0, 270.0, "");
    let base = state("", "", &extra);
    let at = |s: &GameState, n: &str| named(s, n).placement.center_in_table;
    let go = |n: &str, path: serde_json::Value, faces: &[u32]| {
        let mut s = base.clone();
        card(&mut s, n);
        run(
            &s,
            &action("move", json!({ "figure": n, "path_in": path })),
            faces,
        )
        .0
    };
    // Regular: 20 cm = 8 in of a 10 in path.
    let s = go("Reg", json!([[10.0, 15.0]]), &[]);
    assert_relative_eq!(at(&s, "Reg").y, 13.0, epsilon = 0.03);
    // A path that fits ends on its point.
    let s = go("Reg", json!([[10.0, 9.0]]), &[]);
    assert_relative_eq!(at(&s, "Reg").y, 9.0, epsilon = 1e-9);
    // Raw: 3d6 = 6 + 5 + 4 = 15 cm = 6 in, all of it, past a short path.
    let s = go("Green", json!([[5.0, 6.0]]), &[6, 5, 4]);
    assert_relative_eq!(at(&s, "Green").y, 11.0, epsilon = 0.03);
    // Infantry moves straight.
    let mut s = base.clone();
    card(&mut s, "Reg");
    let bend = action(
        "move",
        json!({ "figure": "Reg", "path_in": [[10.0, 7.0], [12.0, 7.0]] }),
    );
    assert!(refused(&s, &bend, RefusalKind::TooFar).contains("0 turns"));
    // Jungle: 5 cm of clear, then 15 cm left / 4 = 3.75 cm: 1.5 in in.
    let s = go("Jungle", json!([[44.0, 20.0]]), &[]);
    assert_relative_eq!(at(&s, "Jungle").x, 33.5, epsilon = 0.03);
    // A wall costs a d10 (7 cm): 20 - 5 - 7 = 8 cm (3.2 in) beyond it.
    let s = go("Waller", json!([[40.0, 40.0]]), &[7]);
    assert_relative_eq!(at(&s, "Waller").x, 35.2, epsilon = 0.05);
    // Seasoned cavalry: 25 + 4d6 cm and one turn of 45 degrees or less.
    let s = go(
        "Trooper",
        json!([[15.0, 50.0], [25.0, 40.0]]),
        &[1, 1, 1, 1],
    );
    // 29 cm = 11.6 in: 10 in east, then 1.6 in south-east.
    let p = at(&s, "Trooper");
    assert_relative_eq!(p.x, 15.0 + 1.6 / 2.0_f64.sqrt(), epsilon = 0.03);
    assert_relative_eq!(p.y, 50.0 - 1.6 / 2.0_f64.sqrt(), epsilon = 0.03);
    let mut s = base.clone();
    card(&mut s, "Trooper");
    let two = action(
        "move",
        json!({ "figure": "Trooper", "path_in": [[10.0, 50.0], [15.0, 45.0], [20.0, 45.0]] }),
    );
    assert!(refused(&s, &two, RefusalKind::TooFar).contains("1 turns"));
    let sharp = action(
        "move",
        json!({ "figure": "Trooper", "path_in": [[10.0, 50.0], [10.0, 40.0]] }),
    );
    assert!(refused(&s, &sharp, RefusalKind::TooFar).contains("45 degrees"));
}

#[test]
fn close_combat_formation_modifiers_from_the_table() {
    // Line 1 (front rank, Line 3 behind him, Line 2 at his flank and not in
    // contact with anyone) against a lone warrior: +2.
    let extra = LINE.to_owned() + &fig("W", "warrior", "Moros", 18.6, 11.6, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Line 1");
    let c = action("close-combat", json!({ "a": "Line 1", "b": "W" }));
    let odds = rules().odds(&s, &c).expect("odds");
    assert_relative_eq!(
        odds[0].p,
        close_combat_p(&data(), 2, false, 0, false),
        epsilon = 1e-12
    );
    // d6 each: 2 + 2 beats 3.
    let (after, ev) = run(&s, &c, &[2, 3]);
    assert_eq!(named(&after, "W").wound, Some(Wound::Killed));
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Note { text } if text.contains("second rank +1")))
    );
    // With the second rank gone the line is a single rank: it wins ties,
    // and only the flank man adds.
    let mut thin = s.clone();
    for n in ["Line 3", "Line 4", "Line 5", "Line 6"] {
        thin.figures
            .iter_mut()
            .find(|f| f.name == n)
            .expect("figure")
            .wound = Some(Wound::Killed);
    }
    let odds = rules().odds(&thin, &c).expect("odds");
    assert_relative_eq!(
        odds[0].p,
        close_combat_p(&data(), 1, true, 0, false),
        epsilon = 1e-12
    );
}

/// A fire at 38 cm is measured, recorded and printed in centimetres, and
/// its "too close to call" comes from the positions' uncertainty by the
/// geometry's one margin, as Stand To!'s does.
#[test]
fn a_fire_at_38_cm_reads_38_cm_and_calls_from_the_same_uncertainty() {
    use spotter::core::UnitKind;
    use spotter::geometry::Measured;
    let extra = lt() + LINE + &fig("W1", "warrior", "Moros", 20.0, 20.0, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Lt");
    let cm_per_in = data().scale.cm_per_in;
    let reading_at = |s: &mut GameState, cm: f64, sigma_in: f64| {
        let from = named(s, "Line 1").placement.center_in_table;
        let w1 = named(s, "W1").id.index();
        let l1 = named(s, "Line 1").id.index();
        s.figures[w1].placement.center_in_table =
            from + nalgebra::Vector2::new(0.0, cm / cm_per_in);
        s.figures[w1].placement.sigma_in = sigma_in;
        s.figures[l1].placement.sigma_in = sigma_in;
        let fire = action(
            "fire",
            json!({ "firers": ["Line 1"], "target": "W1", "individual": true }),
        );
        let (_, ev) = run(s, &fire, &[2]);
        ev.into_iter()
            .find_map(|e| match e {
                Event::Measured(r) => Some(r),
                _ => None,
            })
            .expect("a measurement")
    };
    let r = reading_at(&mut s, 38.0, 0.1);
    assert_eq!(r.unit, UnitKind::Centimetre);
    assert_relative_eq!(r.value, 38.0, epsilon = 1e-9);
    assert!(r.to_string().contains("38.0 cm"), "{r}");
    assert!(!r.to_string().contains(" in "), "{r}");
    assert!(
        !r.too_close_to_call,
        "38 cm is far from the 20 and 60 cm edges"
    );
    // 59 cm with 0.3 in on each figure: 1.06 cm, two of them reach 60 cm.
    let r = reading_at(&mut s, 59.0, 0.3);
    assert!(r.too_close_to_call, "{r:?}");
    let same = Measured::new(r.value, r.sigma).near(60.0);
    assert_eq!(r.too_close_to_call, same, "the geometry's margin");
    assert_relative_eq!(r.sigma, (0.3_f64.hypot(0.3)) * cm_per_in, epsilon = 1e-9);
}
