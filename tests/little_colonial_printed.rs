//! Little Colonial Rules as printed: each test quotes the sentence of the
//! rule text it enforces (../shared/seeds/004_...). Dice are typed in.

use crate::common::little_colonial::*;
use crate::rule_actions::named;

use approx::assert_relative_eq;
use serde_json::json;
use spotter::core::{Centimetre, Length, RefusalKind, UnitKind};
use spotter::game::{Event, GameState, Scenario};
use spotter::rules::little_colonial::engine::{in_the_fight, side_st, st};
use spotter::rules::little_colonial::{LittleColonial, LittleColonialRules, close_combat_p};
use spotter::rules::stand_to::Wound;
use spotter::rules::{Registry, RuleError, RuleSet};
use spotter::spec::SourceFile;

fn line_names() -> Vec<String> {
    (1..=6).map(|k| format!("Line {k}")).collect()
}

/// The Moro group area fire lands on: W1 nearest the firers, three more
/// warriors and an NCO beyond him, all within 6 cm.
fn moro_group() -> String {
    fig("W1", "warrior", "Moros", 20.0, 20.0, 270.0, "")
        + &fig("W2", "warrior", "Moros", 20.0, 21.0, 270.0, "")
        + &fig("W3", "warrior", "Moros", 21.0, 21.0, 270.0, "")
        + &fig("W4", "warrior", "Moros", 19.0, 21.0, 270.0, "")
        + &fig("Nco", "nco", "Moros", 20.0, 22.0, 270.0, "")
}

/// "Now you begin to eliminate enemy figures at your discretion within the
/// semicircular area ... you can take away up to four soldier figures, or
/// three soldiers and one leader/NCO."
#[test]
fn the_firer_chooses_whom_area_fire_removes() {
    let mut s = state("", "", &(lt() + LINE + &moro_group()));
    card(&mut s, "Lt");
    // Six men out of formation: one box of six dice at 27.5 cm (6s), a
    // 6 cm half circle beyond W1. Four hits, four saves failed.
    let fire = action(
        "fire",
        json!({ "firers": line_names(), "target": "W1", "remove": ["W4", "W3", "W2", "Nco"] }),
    );
    let (after, _) = run(&s, &fire, &[6, 6, 6, 6, 1, 1, 1, 1, 1, 1]);
    for n in ["W2", "W3", "W4", "Nco"] {
        assert_eq!(named(&after, n).wound, Some(Wound::Killed), "{n}");
    }
    assert_eq!(named(&after, "W1").wound, None, "the firer spared W1");
    // "you must eliminate at least 3 soldiers before a NCO can be removed"
    let early = action(
        "fire",
        json!({ "firers": line_names(), "target": "W1", "remove": ["W4", "Nco"] }),
    );
    assert!(refused(&s, &early, RefusalKind::CannotDo).contains("at least 3 soldiers"));
    // A figure outside the half circle cannot be chosen.
    let far = action(
        "fire",
        json!({ "firers": line_names(), "target": "W1", "remove": ["Lt"] }),
    );
    assert!(refused(&s, &far, RefusalKind::CannotDo).contains("half circle"));
}

/// "Cavalry adds a card to the order deck for every 10 troopers or less.
/// Each cavalry officer adds 1 additional card to his usual number"
#[test]
fn cavalry_troopers_add_order_cards() {
    let troop = r#"
[[unit]]
name = "Lancers"
side = "Spanish"
formation = "line"
frontage = 6
count = 12
x_in = 30.0
y_in = 10.0
facing_deg = 90.0
spacing_in = 2.1
base = "mounted"
weapon = "carbine"
melee_weapon = "lance"
experience = 2
status = { level = "regular", cavalry = "true" }
"#;
    let vega = mounted(fig(
        "Vega",
        "officer",
        "Spanish",
        30.0,
        3.0,
        90.0,
        r#"status = { level = "regular", command = "platoon-officer", cavalry = "true", leads = "Lancers" }"#,
    ));
    let s = state("", "", &(troop.to_owned() + &vega));
    let deck = s.deck("orders").expect("order deck");
    let vegas = deck.draw.iter().filter(|c| c.starts_with("Vega#")).count();
    // A regular officer's 2, +1 for cavalry, +2 for 12 troopers.
    assert_eq!(vegas, 5, "{:?}", deck.draw);
    assert!(deck.draw.iter().any(|c| c == "end-of-turn"));
}

fn gun_state() -> GameState {
    let extra = GUN.to_owned()
        + &fig("InLine", "warrior", "Moros", 12.0, 30.0, 180.0, "")
        + &fig("Off", "warrior", "Moros", 12.0, 32.0, 180.0, "")
        + &fig("Bounce", "warrior", "Moros", 23.5, 30.0, 180.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Gun");
    s
}

/// "To hit with grapeshot: Automatic (as long as it is within range),
/// Apply the rules for Area fire."
#[test]
fn grapeshot_hits_without_a_to_hit_roll() {
    let s = gun_state();
    let grape = action(
        "artillery",
        json!({ "gun": "Gun", "ammo": "grapeshot", "target": "Bounce" }),
    );
    // No to-hit dice: the gun's rating (12) hits, each saved on a 6. Twelve
    // saves of 1: InLine and Off, the two in the 12 cm half circle, die.
    let (after, ev) = run(&s, &grape, &[1; 12]);
    assert_eq!(named(&after, "InLine").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Off").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Bounce").wound, None);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::Rolled { purpose, .. } if purpose == "grapeshot")),
        "no to-hit roll"
    );
    // Beyond its range it does not fire at all.
    let mut far = s.clone();
    let i = named(&far, "InLine").id.index();
    let j = named(&far, "Off").id.index();
    far.figures[i].placement.center_in_table.x = 40.0;
    far.figures[j].placement.center_in_table.x = 40.0;
    assert!(refused(&far, &grape, RefusalKind::OutOfRange).contains("grapeshot reaches"));
}

/// "Terrain Effects Chart: (formal movement allowances, classified in both
/// linear and area features)": each area costs its own factor, not all as
/// jungle.
#[test]
fn each_rough_area_costs_its_own_factor() {
    let area = |name: &str| {
        format!(
            r#"
[[terrain]]
name = "{name}"
kinds = ["rough"]
polygon_in = [[32.0, 15.0], [45.0, 15.0], [45.0, 25.0], [32.0, 25.0]]
"#
        )
    };
    let walker = fig(
        "Walker",
        "private",
        "Spanish",
        30.0,
        20.0,
        0.0,
        r#"status = { level = "veteran" }"#,
    );
    let w = fig("W", "warrior", "Moros", 55.0, 55.0, 270.0, "");
    let go = |terrain: &str| {
        let mut s = state("", "", &(area(terrain) + &walker + &w));
        card(&mut s, "Walker");
        let mv = action(
            "move",
            json!({ "figure": "Walker", "path_in": [[44.0, 20.0]] }),
        );
        run(&s, &mv, &[]).0
    };
    // 5 cm of clear, then 15 cm left: jungle x4 gives 3.75 cm (1.5 in),
    // scrub x2 (house) 7.5 cm (3 in).
    let x = |s: &GameState| named(s, "Walker").placement.center_in_table.x;
    assert_relative_eq!(x(&go("Jungle east")), 33.5, epsilon = 0.03);
    assert_relative_eq!(x(&go("scrub")), 35.0, epsilon = 0.03);
    // A rough area the data has no factor for is a scenario error naming it.
    let registry = Registry::builtin().expect("rule sets");
    let text = scenario_text("", "", &(area("bog") + &walker + &w));
    let err = Scenario::from_source(&SourceFile::from_text("t.toml", text), &registry)
        .expect_err("no factor for bog")
        .to_string();
    assert!(err.contains("bog") && err.contains("jungle"), "{err}");
}

/// "Every time a figure moves within 2.5 centimetres (1 inch) of an
/// enemy": the gap is between the bases, whatever their size.
#[test]
fn contact_is_measured_between_the_bases() {
    let rider = mounted(fig(
        "Rider",
        "warrior",
        "Moros",
        20.0,
        10.0,
        90.0,
        r#"status = { cavalry = "true" }"#,
    ));
    // The rider's base runs 1 in ahead of his centre: 0.8 in (2 cm) from
    // the foot soldier's base, though their centres are 2.3 in (5.75 cm)
    // apart.
    let extra = rider + &fig("Foot", "private", "Spanish", 20.0, 12.3, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Foot");
    let cc = action("close-combat", json!({ "a": "Foot", "b": "Rider" }));
    assert!(
        rules().check(&s, &cc).is_ok(),
        "{:?}",
        rules().check(&s, &cc)
    );
    let (_, ev) = run(&s, &cc, &[6, 1]);
    let gap = ev
        .iter()
        .find_map(|e| match e {
            Event::Measured(r) => Some(r.clone()),
            _ => None,
        })
        .expect("the gap is measured");
    assert_eq!(gap.unit, UnitKind::Centimetre);
    assert_relative_eq!(gap.value, 2.0, epsilon = 1e-6);
    // Foot to foot 2.1 in apart: bases 1.1 in (2.75 cm) apart, no contact.
    let mut apart = s.clone();
    let r = named(&apart, "Rider").id.index();
    apart.figures[r].placement.shape = spotter::geometry::BaseShape::FOOT;
    apart.figures[r].placement.center_in_table.y = 12.3 - 2.1;
    assert!(refused(&apart, &cc, RefusalKind::NotInContact).contains("not in contact"));
}

/// The text gives "+1 if in formation, fighting cavalry from the front":
/// how wide the front is, and who stands "to the flank", are data.
#[test]
fn the_front_and_flank_angles_are_data() {
    let d = data();
    assert_relative_eq!(d.close_combat.front_half_arc_deg, 45.0);
    assert_relative_eq!(d.close_combat.flank_spread_deg, 30.0);
    assert_relative_eq!(d.close_combat.flank_gap_cm, 1.25);
    // A rider 60 degrees off Line 1's facing: not from the front ...
    let rider = mounted(fig(
        "Rider",
        "warrior",
        "Moros",
        19.5 + 1.8 * 30f64.to_radians().cos(),
        10.0 + 1.8 * 30f64.to_radians().sin(),
        210.0,
        r#"status = { cavalry = "true" }"#,
    ));
    let mut s = state("", "", &(LINE.to_owned() + &rider));
    card(&mut s, "Line 1");
    let cc = action("close-combat", json!({ "a": "Line 1", "b": "Rider" }));
    let third = |rules: &dyn RuleSet| {
        let (_, ev) = crate::rule_actions::run(rules, &s, &cc, &[6, 1]);
        notes(&ev)
            .iter()
            .any(|n| n.contains("third rank against cavalry"))
    };
    assert!(!third(&*rules()));
    // ... unless the data's front is 60 degrees or wider each side.
    let text = spotter::rules::little_colonial::BUILTIN_TOML
        .replace("front_half_arc_deg = 45.0", "front_half_arc_deg = 65.0");
    let wide = LittleColonialRules {
        data: LittleColonial::from_source(&SourceFile::from_text("wide.toml", text))
            .expect("edited data"),
    };
    assert!(third(&wide));
}

/// "Every time a figure moves within 2.5 centimetres (1 inch) of an enemy,
/// the figure must stop and resolve a close combat."
#[test]
fn a_move_stops_within_2_5_cm_of_an_enemy() {
    let extra = fig("Reg", "private", "Spanish", 10.0, 5.0, 90.0, "")
        + &fig("W", "warrior", "Moros", 10.0, 9.0, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Reg");
    let mv = action(
        "move",
        json!({ "figure": "Reg", "path_in": [[10.0, 15.0]] }),
    );
    let (after, ev) = run(&s, &mv, &[]);
    // Bases 1 in apart when the centres are 2 in apart: he stops at y = 7.
    let y = named(&after, "Reg").placement.center_in_table.y;
    assert_relative_eq!(y, 7.0, epsilon = 0.03);
    assert!(notes(&ev).iter().any(|n| n.contains("close combat")));
    let cc = action("close-combat", json!({ "a": "Reg", "b": "W" }));
    assert!(rules().check(&after, &cc).is_ok());
}

/// "Reform: is used to reform troops back into cohesive formations. Any
/// number of adjacent soldiers can move 5 cm to close up a gap within a
/// formation. (May only be ordered by officers and NCO's)"
#[test]
fn reform_closes_a_gap_by_5_cm() {
    let mut s = state(
        "",
        "",
        &(lt() + LINE + &fig("W", "warrior", "Moros", 20.0, 40.0, 270.0, "")),
    );
    card(&mut s, "Lt");
    let from = named(&s, "Line 3").placement.center_in_table;
    let close = action(
        "reform",
        json!({ "unit": "Line", "moves": [{ "figure": "Line 3", "to_in": [from.x + 2.0, from.y] }] }),
    );
    let (after, _) = run(&s, &close, &[]);
    assert_relative_eq!(
        named(&after, "Line 3").placement.center_in_table.x,
        from.x + 2.0
    );
    let far = action(
        "reform",
        json!({ "unit": "Line", "moves": [{ "figure": "Line 3", "to_in": [from.x + 2.2, from.y] }] }),
    );
    assert!(refused(&s, &far, RefusalKind::TooFar).contains("5 cm"));
    let mut private = s.clone();
    card(&mut private, "Line 1");
    assert!(refused(&private, &close, RefusalKind::CannotDo).contains("officer or NCO"));
}

/// "Activate: only officers and NCOs can activate figures of their unit(s)
/// within their command radius. ... NCOs cannot activate officers.
/// Subordinate officers cannot activate their superiors."
#[test]
fn nco_activates_his_unit_and_nobody_his_superior() {
    let capt = fig(
        "Capt",
        "officer",
        "Spanish",
        22.0,
        7.0,
        90.0,
        r#"status = { level = "veteran", command = "company-commander" }"#,
    );
    let sgt = fig(
        "Sgt",
        "nco",
        "Spanish",
        18.0,
        7.0,
        90.0,
        r#"status = { command = "nco", leads = "Line" }"#,
    );
    let stray = fig("Stray", "private", "Spanish", 16.0, 7.0, 90.0, "");
    let extra =
        lt() + &capt + &sgt + &stray + LINE + &fig("W", "warrior", "Moros", 20.0, 40.0, 270.0, "");
    let mut s = state("", "", &extra);
    let mv = |who: &str| action("move", json!({ "figure": who, "path_in": [[20.0, 3.0]] }));
    card(&mut s, "Lt");
    assert!(refused(&s, &mv("Capt"), RefusalKind::CannotDo).contains("superior"));
    card(&mut s, "Sgt");
    assert!(refused(&s, &mv("Stray"), RefusalKind::OutOfCommand).contains("own unit"));
    assert!(
        refused(&s, &mv("Lt"), RefusalKind::CannotDo).contains("NCOs cannot activate officers")
    );
    let line1 = action(
        "move",
        json!({ "figure": "Line 1", "path_in": [[19.5, 12.0]] }),
    );
    assert!(rules().check(&s, &line1).is_ok());
    // The platoon officer may activate the stray man in his radius.
    card(&mut s, "Lt");
    assert!(rules().check(&s, &mv("Stray")).is_ok());
}

/// "A demoralised troop moves at twice its usual movement allowance, away
/// from the enemy and towards its entry / starting point, each time the
/// End of Turn card is drawn. If this point is blocked by enemy forces,
/// the demoralised forces surrender."
#[test]
fn demoralised_troops_fall_back_at_the_end_of_turn_or_surrender() {
    let extra = fig(
        "Runner",
        "warrior",
        "Moros",
        20.0,
        20.0,
        270.0,
        r#"status = { level = "raw", entry-in = "20.0, 50.0" }"#,
    ) + &fig(
        "Cut off",
        "warrior",
        "Moros",
        40.0,
        20.0,
        270.0,
        r#"status = { level = "raw", entry-in = "40.0, 50.0" }"#,
    ) + &fig("Blocker", "private", "Spanish", 40.0, 30.0, 270.0, "")
        + &fig("Spaniard", "private", "Spanish", 20.0, 5.0, 90.0, "");
    let mut s = state("", r#"chits = "0,5,5,5,5""#, &extra);
    s.decks[0].draw = vec!["end-of-turn".into()];
    s.decks[0].discard.clear();
    // The card, then Runner's raw 3d6 = 12 cm: twice that, 24 cm (9.6 in),
    // toward his entry point.
    let (after, _) = run(&s, &action("draw", json!({})), &[1, 4, 4, 4]);
    let runner = named(&after, "Runner").placement.center_in_table;
    assert_relative_eq!(runner.y, 29.6, epsilon = 0.03);
    assert_relative_eq!(runner.x, 20.0, epsilon = 1e-9);
    // Cut off: the Spaniard stands on his way back: he surrenders, and a
    // prisoner is a casualty for morale.
    let cut = named(&after, "Cut off");
    assert!(st(cut).surrendered && !in_the_fight(cut));
    assert_eq!(side_st(&after, 1).piles(), [0, 4, 5, 5, 5]);
}

/// "If a 6 was rolled the figure may perform all actions as before, except
/// now he must pay double movement penalties"
#[test]
fn a_light_wound_doubles_the_cost_of_movement() {
    let extra = fig(
        "Hurt",
        "private",
        "Spanish",
        10.0,
        5.0,
        90.0,
        r#"status = { wound = "light" }"#,
    ) + &fig("W", "warrior", "Moros", 50.0, 50.0, 270.0, "");
    let mut s = state("", "", &extra);
    assert_eq!(named(&s, "Hurt").wound, Some(Wound::Light));
    card(&mut s, "Hurt");
    let mv = action(
        "move",
        json!({ "figure": "Hurt", "path_in": [[10.0, 15.0]] }),
    );
    let (after, _) = run(&s, &mv, &[]);
    // 20 cm at double cost: 10 cm, 4 in.
    assert_relative_eq!(
        named(&after, "Hurt").placement.center_in_table.y,
        9.0,
        epsilon = 0.03
    );
}

/// "If a 5 was rolled, the figure can aid somewhat in his rescue and all
/// movement penalties are tripled for the healthy figure that has come to
/// his assistance. If two figures attempt to help a seriously wounded
/// figure (die roll 5), he could be moved at normal (x1) movement rate."
#[test]
fn a_leg_wound_is_dragged_at_three_times_the_cost() {
    let extra =
        lt() + &fig(
            "Down",
            "private",
            "Spanish",
            20.0,
            12.0,
            90.0,
            r#"status = { wound = "leg" }"#,
        ) + &fig("Help", "private", "Spanish", 21.0, 12.0, 90.0, "")
            + &fig("Help2", "private", "Spanish", 19.0, 12.0, 90.0, "")
            + &fig("W", "warrior", "Moros", 20.0, 50.0, 270.0, "");
    let mut s = state(
        r#"wounded = "compassionate""#,
        r#"wounded = "ruthless""#,
        &extra,
    );
    assert_eq!(named(&s, "Down").wound, Some(Wound::Serious));
    assert!(!in_the_fight(named(&s, "Down")));
    card(&mut s, "Lt");
    let one = action(
        "drag",
        json!({ "wounded": "Down", "helpers": ["Help"], "to_in": [21.0, 2.0] }),
    );
    let (after, _) = run(&s, &one, &[]);
    // 20 cm / 3 = 6.67 cm: 2.67 in back; the wounded man comes with him.
    let help = named(&after, "Help").placement.center_in_table;
    assert_relative_eq!(help.y, 12.0 - 20.0 / 3.0 / 2.5, epsilon = 0.03);
    // He is dragged behind his helper, a base's length back.
    let down = named(&after, "Down").placement.center_in_table;
    assert_relative_eq!(down.y, help.y + 1.0, epsilon = 1e-9);
    let two = action(
        "drag",
        json!({ "wounded": "Down", "helpers": ["Help", "Help2"], "to_in": [21.0, 2.0] }),
    );
    let (after, _) = run(&s, &two, &[]);
    assert_relative_eq!(
        named(&after, "Help").placement.center_in_table.y,
        4.0,
        epsilon = 0.03
    );
    // "He can at NO TIME during the game attempt to give aid and relief to
    // his troops": the engine holds the written slip and lets a Ruthless
    // side try; the other side's challenge catches him
    // (a_challenge_catches_a_ruthless_side_giving_aid).
    let mut ruthless = state(r#"wounded = "ruthless""#, r#"wounded = "ruthless""#, &extra);
    card(&mut ruthless, "Lt");
    let (after, _) = run(&ruthless, &one, &[]);
    assert_ne!(named(&after, "Down").placement.center_in_table.y, 12.0);
    // A man who is not seriously wounded walks by himself.
    let not = action(
        "drag",
        json!({ "wounded": "Help2", "helpers": ["Help"], "to_in": [21.0, 2.0] }),
    );
    assert!(refused(&s, &not, RefusalKind::CannotDo).contains("not seriously wounded"));
}

/// "+1 if in formation, fighting cavalry from the front and a third rank
/// is supporting the fighting figure."
#[test]
fn a_third_rank_adds_one_against_cavalry_from_the_front() {
    let rider = mounted(fig(
        "Rider",
        "warrior",
        "Moros",
        19.5,
        11.9,
        270.0,
        r#"status = { cavalry = "true" }"#,
    ));
    let mut s = state("", "", &(LINE.to_owned() + &rider));
    card(&mut s, "Line 1");
    let cc = action("close-combat", json!({ "a": "Line 1", "b": "Rider" }));
    let p = |s: &GameState| rules().odds(s, &cc).expect("odds")[0].p;
    // Second rank +1 and third rank +1 against the rider's 0 (Line 2, at
    // the flank, is in contact with the rider too: no flank bonus).
    let d = data();
    assert_relative_eq!(
        p(&s),
        close_combat_p(&d, 2, false, 0, false),
        epsilon = 1e-12
    );
    let (_, ev) = run(&s, &cc, &[1, 2]);
    assert!(
        notes(&ev)
            .iter()
            .any(|n| n.contains("third rank against cavalry +1"))
    );
    // Without the third rank, only the second rank adds.
    let mut two = s.clone();
    for n in ["Line 5", "Line 6"] {
        let i = named(&two, n).id.index();
        two.figures[i].wound = Some(Wound::Killed);
    }
    assert_relative_eq!(
        p(&two),
        close_combat_p(&d, 1, false, 0, false),
        epsilon = 1e-12
    );
}

/// "You can fire pistols and revolvers while mounted, with a -2 modifier.
/// You can fire carbines while mounted, with a -3 modifier": the weapons
/// carry the modifier; the data has no second copy of it.
#[test]
fn mounted_fire_modifiers_live_on_the_weapons() {
    let d = data();
    assert_eq!(d.weapons["pistol"].mounted_add, -2);
    assert_eq!(d.weapons["carbine"].mounted_add, -3);
    assert!(!spotter::rules::little_colonial::BUILTIN_TOML.contains("mounted_pistol_add"));
    // A mounted carbine at 8 in (20 cm, 5s): a 6 - 3 misses.
    let rider = mounted(fig(
        "Trooper",
        "private",
        "Spanish",
        20.0,
        10.0,
        90.0,
        r#"status = { cavalry = "true" }"#,
    ))
    .replace("weapon = \"rifle\"", "weapon = \"carbine\"");
    let mut s = state(
        "",
        "",
        &(rider + &fig("W", "warrior", "Moros", 20.0, 18.0, 270.0, "")),
    );
    card(&mut s, "Trooper");
    let shot = action(
        "fire",
        json!({ "firers": ["Trooper"], "target": "W", "individual": true }),
    );
    let (after, _) = run(&s, &shot, &[6]);
    assert_eq!(named(&after, "W").wound, None);
}

/// Check decides without dice: it returns the refusal resolve would, and
/// never draws a card or rolls.
#[test]
fn check_is_not_a_resolve() {
    let mut s = state("", "", &(lt() + LINE + &moro_group()));
    // No card in play: the same refusal from check and resolve.
    let fire = action(
        "fire",
        json!({ "firers": ["Line 1"], "target": "W1", "individual": true }),
    );
    let mut dice = spotter::rules::dice::TypedDice::new([]);
    let r = rules().resolve(&s, &fire, &mut dice);
    assert!(matches!(r, Err(RuleError::Refused(ref x)) if x.kind == RefusalKind::Cards));
    assert!(refused(&s, &fire, RefusalKind::Cards).contains("no order card"));
    card(&mut s, "Lt");
    assert!(rules().check(&s, &fire).is_ok());
}

/// A fire at 38 cm is recorded in centimetres and printed as 38 cm by the
/// one formatter the CLI and the app share (`Reading`'s text), and its "too
/// close to call" is the geometry's margin on the positions' uncertainty,
/// as Stand To!'s is.
#[test]
fn a_fire_at_38_cm_prints_38_cm_in_the_cli() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = |target_y: f64| {
        let text = format!(
            r#"
name = "38 cm"
rule_set = "little-colonial"
position_sigma_in = 0.2
[table]
width_in = 48.0
depth_in = 48.0
[[side]]
name = "Spanish"
kind = "european"
status = {{ chits = "5,5,5,5,5" }}
[[side]]
name = "Moros"
kind = "native"
status = {{ chits = "5,5,5,5,5" }}
[[unit]]
name = "Picket"
side = "Spanish"
formation = "loose"
frontage = 1
count = 1
x_in = 10.0
y_in = 10.0
facing_deg = 90.0
weapon = "rifle"
melee_weapon = "bayonet"
[[figure]]
name = "Sgt"
rank = "nco"
side = "Spanish"
weapon = "none"
melee_weapon = "sword"
experience = 2
x_in = 10.0
y_in = 8.0
facing_deg = 90.0
base = "foot"
status = {{ command = "nco", leads = "Picket" }}
[[figure]]
name = "W"
rank = "warrior"
side = "Moros"
weapon = "rifle"
melee_weapon = "kris"
experience = 2
x_in = 10.0
y_in = {target_y}
facing_deg = 270.0
base = "foot"
"#
        );
        let path = dir.path().join(format!("lcr-{target_y}.toml"));
        std::fs::write(&path, text).expect("scenario written");
        path
    };
    let resolve = |path: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_spotter"))
            .args(["resolve", "--scenario"])
            .arg(path)
            .args([
                "--rule-action",
                "draw",
                "--action-params",
                r#"{"then": "fire"}"#,
                "--dice",
                "1,2",
            ])
            .output()
            .expect("spotter runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // 15.2 in = 38 cm; the target's 0.2 in is 0.5 cm.
    let out = resolve(&scenario(10.0 + 38.0 / 2.5));
    let line = out
        .lines()
        .find(|l| l.starts_with("measured range to W"))
        .unwrap_or_else(|| panic!("a range in {out}"));
    assert_eq!(line, "measured range to W: 38.0 cm \u{b1} 0.5", "{out}");
    // At 59.5 cm the 60 cm edge is within two sigmas: too close to call,
    // by the same test the geometry applies to every rule set.
    let out = resolve(&scenario(10.0 + 59.5 / 2.5));
    let line = out
        .lines()
        .find(|l| l.starts_with("measured range to W"))
        .unwrap_or_else(|| panic!("a range in {out}"));
    assert!(
        line.contains("59.5 cm") && line.ends_with("TOO CLOSE TO CALL"),
        "{line}"
    );
    assert!(Length::<Centimetre>::new(59.5, 0.5).near(60.0));
    assert!(!Length::<Centimetre>::new(38.0, 0.5).near(60.0));
}

/// "When a group of active figures fire upon a group of enemy figures you
/// must trace a line to the nearest enemy figure (not in close combat)."
#[test]
fn area_fire_passes_over_the_nearest_enemy_in_close_combat() {
    let extra =
        lt() + LINE + &moro_group() + &fig("Brawler", "private", "Spanish", 20.0, 18.8, 90.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Lt");
    let fire = action("fire", json!({ "firers": line_names(), "target": "W1" }));
    let (_, ev) = run(&s, &fire, &[1; 6]);
    let target = ev
        .iter()
        .find_map(|e| match e {
            Event::Measured(r) => Some(r.what.clone()),
            _ => None,
        })
        .expect("a range");
    // W1 fights Brawler (bases 0.2 in apart): the line goes to the next.
    assert!(
        !target.contains("W1") && target.starts_with("range to W"),
        "{target}"
    );
}

/// "Officers always move as regular or better."
#[test]
fn a_raw_officer_moves_as_a_regular() {
    let extra = fig(
        "Raw Lt",
        "officer",
        "Spanish",
        10.0,
        5.0,
        90.0,
        r#"status = { level = "raw", command = "platoon-officer" }"#,
    ) + &fig("W", "warrior", "Moros", 50.0, 50.0, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Raw Lt");
    let mv = action(
        "move",
        json!({ "figure": "Raw Lt", "path_in": [[10.0, 15.0]] }),
    );
    // No dice: 20 cm, 8 in.
    let (after, _) = run(&s, &mv, &[]);
    assert_relative_eq!(
        named(&after, "Raw Lt").placement.center_in_table.y,
        13.0,
        epsilon = 0.03
    );
}

/// "The soldier can fire without restrictions, except that the line of
/// fire must not pass over any friendly figure base(s), or is totally
/// blocked by a high wall, a house or thick bamboo forest."
#[test]
fn individual_fire_is_blocked_by_friends_and_high_walls() {
    let house = r#"
[[terrain]]
name = "house"
kinds = ["blocking"]
polygon_in = [[28.0, 14.0], [32.0, 14.0], [32.0, 16.0], [28.0, 16.0]]
"#;
    let extra = house.to_owned()
        + &fig("Shot", "private", "Spanish", 20.0, 10.0, 90.0, "")
        + &fig("Friend", "private", "Spanish", 20.0, 14.0, 90.0, "")
        + &fig("Clear", "private", "Spanish", 30.0, 10.0, 90.0, "")
        + &fig("W", "warrior", "Moros", 20.0, 20.0, 270.0, "")
        + &fig("W2", "warrior", "Moros", 30.0, 20.0, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Shot");
    let at = |who: &str, t: &str| {
        action(
            "fire",
            json!({ "firers": [who], "target": t, "individual": true }),
        )
    };
    assert!(refused(&s, &at("Shot", "W"), RefusalKind::OutOfSight).contains("Friend's base"));
    card(&mut s, "Clear");
    assert!(refused(&s, &at("Clear", "W2"), RefusalKind::OutOfSight).contains("house"));
}

/// "However, if at any time an enemy figure comes adjacent (in base to
/// base/figure contact) to any of the enemy wounded, they are immediately
/// declared and considered dead"
#[test]
fn a_ruthless_sides_wounded_die_when_an_enemy_reaches_them() {
    let extra = fig("Mover", "private", "Spanish", 10.0, 5.0, 90.0, "")
        + &fig(
            "Left",
            "warrior",
            "Moros",
            10.0,
            12.0,
            270.0,
            r#"status = { wound = "torso" }"#,
        )
        + &fig("W", "warrior", "Moros", 50.0, 50.0, 270.0, "");
    let mut s = state(
        r#"wounded = "compassionate""#,
        r#"wounded = "ruthless""#,
        &extra,
    );
    card(&mut s, "Mover");
    let mv = action(
        "move",
        json!({ "figure": "Mover", "path_in": [[10.0, 11.0]] }),
    );
    let (after, _) = run(&s, &mv, &[]);
    assert_eq!(named(&after, "Left").wound, Some(Wound::Killed));
    // Short of his base, he lives.
    let short = action(
        "move",
        json!({ "figure": "Mover", "path_in": [[10.0, 9.0]] }),
    );
    let (after, _) = run(&s, &short, &[]);
    assert_eq!(named(&after, "Left").wound, Some(Wound::Serious));
}

/// "However, if at any time an enemy figure comes adjacent (in base to
/// base/figure contact) to any of the enemy wounded, they are immediately
/// declared and considered dead": at any time, so after a reform, a drag
/// and a demoralised man's flight as after a move.
#[test]
fn ruthless_wounded_die_when_a_reform_or_a_drag_reaches_them() {
    let left = |x: f64, y: f64| {
        fig(
            "Left",
            "warrior",
            "Moros",
            x,
            y,
            270.0,
            r#"status = { wound = "torso" }"#,
        )
    };
    let far = fig("W", "warrior", "Moros", 20.0, 50.0, 270.0, "");
    let sides = (r#"wounded = "compassionate""#, r#"wounded = "ruthless""#);
    // Line 3 (19.5, 9) closes up 2 in to the right, beside him.
    let mut s = state(sides.0, sides.1, &(lt() + LINE + &left(22.5, 9.0) + &far));
    card(&mut s, "Lt");
    let reform = action(
        "reform",
        json!({ "unit": "Line", "moves": [{ "figure": "Line 3", "to_in": [21.5, 9.0] }] }),
    );
    let (after, _) = run(&s, &reform, &[]);
    assert_eq!(named(&after, "Left").wound, Some(Wound::Killed));
    // Help drags Down back from (21, 12) to (21, 9.33), beside him.
    let extra =
        lt() + &fig(
            "Down",
            "private",
            "Spanish",
            20.0,
            12.0,
            90.0,
            r#"status = { wound = "leg" }"#,
        ) + &fig("Help", "private", "Spanish", 21.0, 12.0, 90.0, "")
            + &left(22.2, 9.0)
            + &far;
    let mut s = state(sides.0, sides.1, &extra);
    card(&mut s, "Lt");
    let drag = action(
        "drag",
        json!({ "wounded": "Down", "helpers": ["Help"], "to_in": [21.0, 2.0] }),
    );
    let (after, _) = run(&s, &drag, &[]);
    assert_eq!(named(&after, "Left").wound, Some(Wound::Killed));
}

#[test]
fn a_fleeing_man_reaching_ruthless_wounded_kills_them() {
    // Runner falls back 9.6 in to (20, 29.6), beside the Spaniard Hurt.
    let extra = fig(
        "Runner",
        "warrior",
        "Moros",
        20.0,
        20.0,
        270.0,
        r#"status = { level = "raw", entry-in = "20.0, 50.0" }"#,
    ) + &fig(
        "Hurt",
        "private",
        "Spanish",
        21.0,
        29.6,
        90.0,
        r#"status = { wound = "torso" }"#,
    ) + &fig("Spaniard", "private", "Spanish", 20.0, 5.0, 90.0, "");
    let mut s = state(
        r#"wounded = "ruthless""#,
        r#"chits = "0,5,5,5,5", wounded = "compassionate""#,
        &extra,
    );
    s.decks[0].draw = vec!["end-of-turn".into()];
    s.decks[0].discard.clear();
    let (after, _) = run(&s, &action("draw", json!({})), &[1, 4, 4, 4]);
    assert_relative_eq!(
        named(&after, "Runner").placement.center_in_table.y,
        29.6,
        epsilon = 0.03
    );
    assert_eq!(named(&after, "Hurt").wound, Some(Wound::Killed));
}

/// "While the "Civilised" player is certainly allowed to be Ruthless during
/// a game, his forces will suffer a 5% decrease in Morale if he chooses to
/// do so (reflected in the overall number of chits/movement cards
/// allowed)."
#[test]
fn a_ruthless_civilised_side_has_5_percent_fewer_chits() {
    let unit = |name: &str, side: &str, y: f64, facing: f64| {
        format!(
            r#"
[[unit]]
name = "{name}"
side = "{side}"
formation = "line"
frontage = 10
count = 60
x_in = 30.0
y_in = {y}
facing_deg = {facing}
weapon = "rifle"
melee_weapon = "bayonet"
experience = 2
status = {{ level = "regular" }}
"#
        )
    };
    let piles = |spanish: &str, moros: &str| {
        let text = scenario_text(
            spanish,
            moros,
            &(unit("Tercio", "Spanish", 10.0, 90.0) + &unit("Moros", "Moros", 40.0, 270.0)),
        );
        let registry = Registry::builtin().expect("rule sets");
        let s = Scenario::from_source(&SourceFile::from_text("t.toml", text), &registry)
            .expect("scenario")
            .state;
        (
            side_st(&s, 0).piles().to_vec(),
            side_st(&s, 1).piles().to_vec(),
        )
    };
    // 60 men: 20 chits; Ruthless and civilised, 5% off: 19.
    let (spanish, moros) = piles(r#"wounded = "ruthless""#, r#"wounded = "ruthless""#);
    assert_eq!(spanish, [3, 3, 3, 3, 7]);
    // The natives are not "civilised"; a Compassionate side keeps its chits.
    assert_eq!(moros, [4, 4, 4, 4, 4]);
    let (spanish, _) = piles(r#"wounded = "compassionate""#, r#"wounded = "ruthless""#);
    assert_eq!(spanish, [4, 4, 4, 4, 4]);
    assert_eq!(data().morale.ruthless_civilised_percent, 5);
}

/// "To hit with roundshot: You must designate a target point within LOS
/// and throw a die."
#[test]
fn the_guns_target_point_must_be_in_sight() {
    let mut s = gun_state();
    s.terrain.push(spotter::geometry::TerrainArea {
        name: "house".into(),
        kinds: vec![spotter::geometry::TerrainKind::Blocking],
        polygon_in: vec![
            nalgebra::Point2::new(6.0, 31.0),
            nalgebra::Point2::new(8.0, 31.0),
            nalgebra::Point2::new(8.0, 33.0),
            nalgebra::Point2::new(6.0, 33.0),
        ],
    });
    let at = |x: f64, y: f64| {
        action(
            "artillery",
            json!({ "gun": "Gun", "ammo": "roundshot", "at_in": [x, y] }),
        )
    };
    assert!(refused(&s, &at(12.0, 34.0), RefusalKind::OutOfSight).contains("house"));
    rules()
        .check(&s, &at(12.0, 30.0))
        .expect("a clear line to the point");
}

/// "Formation fire: You can fire through the base of a friendly figure if
/// the figure you are firing with is directly behind and adjacent to the
/// figure you are firing through (around)."
#[test]
fn formation_fire_passes_only_the_friend_directly_in_front() {
    let extra = lt()
        + &fig("Back", "private", "Spanish", 20.0, 10.0, 90.0, "")
        + &fig("Front", "private", "Spanish", 20.0, 11.0, 90.0, "")
        + &fig("W", "warrior", "Moros", 20.0, 20.0, 270.0, "");
    let mut s = state("", "", &extra);
    card(&mut s, "Lt");
    let fire = |firers: &[&str], formation: bool| {
        action(
            "fire",
            json!({ "firers": firers, "target": "W", "formation": formation }),
        )
    };
    rules()
        .check(&s, &fire(&["Back"], true))
        .expect("Back is directly behind and adjacent to Front");
    // Activated fire (out of formation): the text sets no such limit.
    rules()
        .check(&s, &fire(&["Back"], false))
        .expect("activated fire");
    // A friend 3 in ahead is not the man directly in front.
    let i = named(&s, "Front").id.index();
    s.figures[i].placement.center_in_table.y = 14.0;
    let why = refused(&s, &fire(&["Back"], true), RefusalKind::OutOfSight);
    assert!(why.contains("directly behind and adjacent"), "{why}");
    rules()
        .check(&s, &fire(&["Back"], false))
        .expect("activated fire");
    // With a clear man beside him, the rest fire: one rifle's die.
    let extra = lt()
        + &fig("Back", "private", "Spanish", 20.0, 10.0, 90.0, "")
        + &fig("Front", "private", "Spanish", 20.0, 14.0, 90.0, "")
        + &fig("Side", "private", "Spanish", 23.0, 10.0, 90.0, "")
        + &fig("W", "warrior", "Moros", 20.0, 20.0, 270.0, "");
    let mut two = state("", "", &extra);
    card(&mut two, "Lt");
    let (_, ev) = run(&two, &fire(&["Back", "Side"], true), &[1]);
    assert!(
        notes(&ev).iter().any(|n| n.contains("Back's line of fire")),
        "{ev:#?}"
    );
}

/// Lt's card is in play again, as a new card (the men who acted on his
/// first may act on this one).
fn next_card(s: &mut GameState, owner: &str) {
    s.rules.little_colonial_mut().card = Some(format!("{owner}#2"));
}

/// "Seriously wounded (die rolls of 4 or 5) figures behind the lines may be
/// gathered at a central location and/or used to defend a position. Firing
/// ranges are doubled for calculation purposes and movement is NOT allowed"
#[test]
fn gathered_wounded_fire_with_doubled_ranges_and_do_not_move() {
    // Down lies behind Guard and Lt, 12 in (30 cm) from W; Exposed lies
    // off to the side, with nobody of his between him and W.
    let extra =
        lt() + &fig(
            "Down",
            "private",
            "Spanish",
            20.0,
            5.0,
            90.0,
            r#"status = { wound = "torso" }"#,
        ) + &fig(
            "Exposed",
            "private",
            "Spanish",
            24.0,
            5.0,
            90.0,
            r#"status = { wound = "leg" }"#,
        ) + &fig("Guard", "private", "Spanish", 20.0, 10.0, 90.0, "")
            + &fig("W", "warrior", "Moros", 20.0, 17.0, 270.0, "");
    let mut s = state(
        r#"wounded = "compassionate""#,
        r#"wounded = "compassionate""#,
        &extra,
    );
    card(&mut s, "Lt");
    let fire = action("fire", json!({ "firers": ["Down"], "target": "W" }));
    // Lying where he fell, he is out of the fight.
    refused(&s, &fire, RefusalKind::OutOfTheFight);
    let exposed = action("gather", json!({ "wounded": ["Exposed"] }));
    assert!(refused(&s, &exposed, RefusalKind::CannotDo).contains("not behind the lines"));
    let gather = action("gather", json!({ "wounded": ["Down"] }));
    let (mut s, _) = run(&s, &gather, &[]);
    next_card(&mut s, "Lt");
    // At 30 cm a healthy man needs a 6 (long range, 20-60 cm); with the
    // ranges doubled 30 cm is medium range (20-40 cm): a 5 hits.
    // A 5 to hit, a 1 to save, a 1 on the wounded die: W is killed.
    let (after, ev) = run(&s, &fire, &[5, 1, 1]);
    assert_eq!(named(&after, "W").wound, Some(Wound::Killed));
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Odds { purpose, .. } if purpose == "1 dice needing 5")),
        "{ev:#?}"
    );
    let mv = action(
        "move",
        json!({ "figure": "Down", "path_in": [[20.0, 2.0]] }),
    );
    assert!(refused(&s, &mv, RefusalKind::CannotDo).contains("movement is NOT allowed"));
    // Gathered wounded fire apart from the healthy men.
    let mixed = action(
        "fire",
        json!({ "firers": ["Down", "Guard"], "target": "W" }),
    );
    assert!(refused(&s, &mixed, RefusalKind::Malformed).contains("apart"));
}

/// Ten healthy Spaniards (Lt, six of the line, three more), a man down
/// with a leg wound and Help beside him, and an old torso wound.
fn challenge_state(spanish: &str, moros: &str) -> GameState {
    let extra = lt()
        + LINE
        + &fig(
            "Down",
            "private",
            "Spanish",
            30.0,
            12.0,
            90.0,
            r#"status = { wound = "leg" }"#,
        )
        + &fig("Help", "private", "Spanish", 31.0, 12.0, 90.0, "")
        + &fig("Spare", "private", "Spanish", 40.0, 3.0, 90.0, "")
        + &fig("Spare2", "private", "Spanish", 42.0, 3.0, 90.0, "")
        + &fig(
            "Old",
            "private",
            "Spanish",
            5.0,
            3.0,
            90.0,
            r#"status = { wound = "torso" }"#,
        )
        + &fig("W", "warrior", "Moros", 30.0, 50.0, 270.0, "")
        + &fig("W2", "warrior", "Moros", 32.0, 50.0, 270.0, "");
    let mut s = state(spanish, moros, &extra);
    // Help is in the Lt's radius: the Lt moves up beside the wounded.
    s.figures
        .iter_mut()
        .find(|f| f.name == "Lt")
        .expect("Lt")
        .placement
        .center_in_table = nalgebra::Point2::new(28.0, 9.0);
    card(&mut s, "Lt");
    s
}

/// "At any time during the game, each side may challenge the other side to
/// see what they decided to do in regards to their wounded. This may only
/// be done ONCE and it may only be done when an opponent is attempting to
/// give aid to his wounded. If a player is found to be doing the opposite
/// of what he wrote down, he immediately suffers ten percent (10%)
/// casualties to his healthy forces (roll to see how many are wounded and
/// killed using the above procedure) and all pre-existing wounded are now
/// considered killed (regardless as to whether they were rescued or not)."
#[test]
fn a_challenge_catches_a_ruthless_side_giving_aid() {
    let s = challenge_state(r#"wounded = "ruthless""#, r#"wounded = "compassionate""#);
    let challenge = action("challenge", json!({ "side": "Moros" }));
    // Nobody is giving aid: no challenge yet.
    assert!(refused(&s, &challenge, RefusalKind::CannotDo).contains("give aid"));
    // The Spanish wrote Ruthless, yet drag Down: the engine holds the slip
    // and lets them try.
    let drag = action(
        "drag",
        json!({ "wounded": "Down", "helpers": ["Help"], "to_in": [31.0, 2.0] }),
    );
    let (s, _) = run(&s, &drag, &[]);
    // The Spanish cannot challenge their own aid.
    let own = action("challenge", json!({ "side": "Spanish" }));
    refused(&s, &own, RefusalKind::CannotDo);
    let chits_before: u32 = side_st(&s, 0).piles().iter().sum();
    // 10% of ten healthy men: one, the third of them, killed (a 1 on the
    // wounded die).
    let (after, ev) = run(&s, &challenge, &[3, 1]);
    let healthy_killed = after
        .figures
        .iter()
        .filter(|f| f.side == 0 && !["Down", "Old"].contains(&f.name.as_str()))
        .filter(|f| f.wound == Some(Wound::Killed))
        .count();
    assert_eq!(healthy_killed, 1, "{:#?}", notes(&ev));
    // Both earlier wounded are killed, dragged or not; they cost no more
    // chits, the new casualty one.
    assert_eq!(named(&after, "Down").wound, Some(Wound::Killed));
    assert_eq!(named(&after, "Old").wound, Some(Wound::Killed));
    let chits_after: u32 = side_st(&after, 0).piles().iter().sum();
    assert_eq!(chits_before - chits_after, 1);
    // "This may only be done ONCE."
    refused(&after, &challenge, RefusalKind::AlreadyActed);
}

/// A side that wrote Compassionate and aids its wounded does what it wrote:
/// the challenge costs it nothing.
#[test]
fn a_challenge_of_a_compassionate_side_costs_it_nothing() {
    let s = challenge_state(r#"wounded = "compassionate""#, r#"wounded = "ruthless""#);
    let drag = action(
        "drag",
        json!({ "wounded": "Down", "helpers": ["Help"], "to_in": [31.0, 2.0] }),
    );
    let (s, _) = run(&s, &drag, &[]);
    let (after, _) = run(&s, &action("challenge", json!({ "side": "Moros" })), &[]);
    assert_eq!(named(&after, "Down").wound, Some(Wound::Serious));
    assert_eq!(named(&after, "Old").wound, Some(Wound::Serious));
    assert!(after.figures.iter().all(|f| f.wound != Some(Wound::Killed)));
    refused(
        &after,
        &action("challenge", json!({ "side": "Moros" })),
        RefusalKind::AlreadyActed,
    );
}

/// "The player is provided with X number of individual soldier cards
/// during the game. These cards will allow the player to use an individual
/// soldier at a critical point in time in order to accomplish something.
/// ... You could use ALL of your soldier cards on one individual (to
/// reinforce success) or you could use them on a one for one basis"
#[test]
fn individual_soldier_cards_let_one_man_act_anywhere() {
    // Lone stands far from any officer: no card of an officer moves him.
    let extra = lt()
        + &fig("Lone", "private", "Spanish", 50.0, 5.0, 90.0, "")
        + &fig("Other", "private", "Spanish", 52.0, 5.0, 90.0, "")
        + &fig("W", "warrior", "Moros", 50.0, 50.0, 270.0, "");
    let s = state(r#"soldier-cards = "3""#, "", &extra);
    let deck = s.deck("orders").expect("order deck");
    let soldier = |side: &str| {
        deck.draw
            .iter()
            .filter(|c| c.starts_with(&format!("soldier:{side}#")))
            .count()
    };
    // The scenario's 3 for the Spanish; the house default, 1, for the Moros.
    assert_eq!(soldier("Spanish"), 3, "{:?}", deck.draw);
    assert_eq!(soldier("Moros"), 1, "{:?}", deck.draw);
    let mut s = s;
    card(&mut s, "Lt");
    let mv = |who: &str| action("move", json!({ "figure": who, "path_in": [[50.0, 8.0]] }));
    refused(&s, &mv("Lone"), RefusalKind::OutOfCommand);
    s.decks[0].draw = vec!["soldier:Spanish#1".into(), "soldier:Spanish#2".into()];
    let (s, _) = run(&s, &action("draw", json!({})), &[1]);
    let (after, _) = run(&s, &mv("Lone"), &[]);
    assert_relative_eq!(
        named(&after, "Lone").placement.center_in_table.y,
        8.0,
        epsilon = 1e-9
    );
    // One man acts on the card; he acts once on it.
    assert!(refused(&after, &mv("Other"), RefusalKind::Cards).contains("one man"));
    refused(&after, &mv("Lone"), RefusalKind::AlreadyActed);
    let moro = action("move", json!({ "figure": "W", "path_in": [[50.0, 45.0]] }));
    refused(&after, &moro, RefusalKind::NotAnEnemy);
    // The next soldier card may go to the same man.
    let (s2, _) = run(&after, &action("draw", json!({})), &[1]);
    run(&s2, &mv("Lone"), &[]);
    // A played soldier card is spent: End of Turn does not bring it back.
    let d = s2.deck("orders").expect("order deck");
    assert!(
        !d.discard.iter().any(|c| c.starts_with("soldier:")),
        "{d:?}"
    );
}

/// "If there is a continuous (and contiguous) line of figures in lateral
/// contact (i.e., a line), all the figures in that line are considered in
/// command IF the command radius of ANY officer or NCO (who just drew a
/// card and used it) is within range of ANY figure in that line."
#[test]
fn only_a_contiguous_line_is_in_command_by_any_of_its_men() {
    // Five men in contact beyond the Line's right file, out to x = 25.5 (the
    // last 6.5 in from the Lt, beyond his 6 in radius).
    let chain: String = (1..=5)
        .map(|k| {
            fig(
                &format!("C{k}"),
                "private",
                "Spanish",
                20.5 + f64::from(k),
                10.0,
                90.0,
                "",
            )
        })
        .collect();
    let stray = fig("Stray", "private", "Spanish", 27.5, 10.0, 90.0, "");
    let mut s = state("", "", &(lt() + LINE + &chain + &stray + &moro_group()));
    card(&mut s, "Lt");
    let mut line = line_names();
    line.extend((1..=5).map(|k| format!("C{k}")));
    let fire = |firers: &[String]| {
        action(
            "fire",
            json!({ "firers": firers, "target": "W1", "formation": true }),
        )
    };
    rules()
        .check(&s, &fire(&line))
        .expect("the line is in command through its men in the radius");
    // Stray stands 1 in clear of C5: not in the line, out of the radius.
    let mut with_stray = line.clone();
    with_stray.push("Stray".into());
    assert!(refused(&s, &fire(&with_stray), RefusalKind::OutOfCommand).contains("Stray"));
}

/// "However, if at any time an enemy figure comes adjacent (in base to
/// base/figure contact) to any of the enemy wounded, they are immediately
/// declared and considered dead": the contact is measured like every range,
/// with its uncertainty, and recorded.
#[test]
fn the_ruthless_contact_is_measured_with_its_uncertainty() {
    let extra = fig("Mover", "private", "Spanish", 10.0, 5.0, 90.0, "")
        + &fig(
            "Left",
            "warrior",
            "Moros",
            10.0,
            12.0,
            270.0,
            r#"status = { wound = "torso" }"#,
        )
        + &fig("W", "warrior", "Moros", 50.0, 50.0, 270.0, "");
    let mut s = state(
        r#"wounded = "compassionate""#,
        r#"wounded = "ruthless""#,
        &extra,
    );
    for f in &mut s.figures {
        f.placement.sigma_in = 0.2;
    }
    card(&mut s, "Mover");
    // He ends 0.1 in (0.25 cm) from Left's base: adjacent, but the 0.28 in
    // sigma could put him beyond the 1.25 cm.
    let mv = action(
        "move",
        json!({ "figure": "Mover", "path_in": [[10.0, 10.9]] }),
    );
    let (after, ev) = run(&s, &mv, &[]);
    assert_eq!(named(&after, "Left").wound, Some(Wound::Killed));
    let reading = ev
        .iter()
        .find_map(|e| match e {
            Event::Measured(r) if r.what == "Mover to Left, base to base" => Some(r.clone()),
            _ => None,
        })
        .expect("the contact is recorded");
    assert_eq!(reading.unit, UnitKind::Centimetre);
    assert_relative_eq!(reading.value, 0.25, epsilon = 0.06);
    assert!(
        reading.sigma > 0.0 && reading.too_close_to_call,
        "{reading:?}"
    );
}

/// Optional: "Any terrain taller than the (tallest*) figure
/// (unit/formation) is considered blocking terrain for line of sight
/// purposes." "Man on Foot- Six feet tall (6') / Mounted figure- Nine feet
/// tall (9') / Man on roof of house-Twelve Feet tall (12') / Man in church
/// steeple- Twenty Four Feet tall (24')"
#[test]
fn optional_heights_let_taller_figures_see_over_terrain() {
    let terrain = r#"
[[terrain]]
name = "high wall"
kinds = ["blocking"]
polygon_in = [[18.0, 14.0], [22.0, 14.0], [22.0, 15.0], [18.0, 15.0]]
[[terrain]]
name = "house"
kinds = ["blocking"]
polygon_in = [[28.0, 14.0], [32.0, 14.0], [32.0, 16.0], [28.0, 16.0]]
"#;
    let extra = terrain.to_owned()
        + &mounted(fig("Rider", "private", "Spanish", 20.0, 10.0, 90.0, ""))
        + &fig("Foot", "private", "Spanish", 21.0, 10.0, 90.0, "")
        + &fig(
            "Roof",
            "private",
            "Spanish",
            30.0,
            10.0,
            90.0,
            r#"status = { perch = "roof" }"#,
        )
        + &fig("W", "warrior", "Moros", 20.0, 20.0, 270.0, "")
        + &fig("W2", "warrior", "Moros", 30.0, 20.0, 270.0, "");
    let at = |who: &str, t: &str| {
        action(
            "fire",
            json!({ "firers": [who], "target": t, "individual": true }),
        )
    };
    let d = data();
    assert_relative_eq!(d.sight.foot_ft, 6.0);
    assert_relative_eq!(d.sight.mounted_ft, 9.0);
    assert_relative_eq!(d.sight.roof_ft, 12.0);
    assert_relative_eq!(d.sight.steeple_ft, 24.0);
    // Off by default: every blocking area blocks.
    let mut s = state("", "", &extra);
    card(&mut s, "Rider");
    assert!(refused(&s, &at("Rider", "W"), RefusalKind::OutOfSight).contains("high wall"));
    // Both sides agree to the heights: the 9 ft rider sees over the 8 ft
    // wall, the 6 ft man on foot does not; the 12 ft man on a roof does not
    // see over the 15 ft house.
    let agreed = r#"sight-heights = "true""#;
    let mut s = state(agreed, agreed, &extra);
    card(&mut s, "Rider");
    rules()
        .check(&s, &at("Rider", "W"))
        .expect("the rider sees over the wall");
    card(&mut s, "Foot");
    assert!(refused(&s, &at("Foot", "W"), RefusalKind::OutOfSight).contains("high wall"));
    card(&mut s, "Roof");
    assert!(refused(&s, &at("Roof", "W2"), RefusalKind::OutOfSight).contains("house"));
    // In a steeple (24 ft) he sees over it.
    s.figures
        .iter_mut()
        .find(|f| f.name == "Roof")
        .expect("Roof")
        .rules
        .little_colonial_mut()
        .perch = Some(spotter::rules::little_colonial::status::Perch::Steeple);
    rules()
        .check(&s, &at("Roof", "W2"))
        .expect("from the steeple he sees over the house");
}

/// "before Player B can move, Player A announces that he will use his
/// reserved card of Lt Toledo." ... "Any and all cards held by players must
/// now be surrendered and shuffled back into the Order Deck."
#[test]
fn a_reserved_card_is_played_later_or_goes_back_at_end_of_turn() {
    let mut s = state(
        "",
        "",
        &(lt() + &fig("W", "warrior", "Moros", 20.0, 50.0, 270.0, "")),
    );
    s.decks[0].draw = vec!["Lt#1".into(), "end-of-turn".into()];
    s.decks[0].discard.clear();
    let reserve = action("draw", json!({ "reserve": true }));
    let (held, _) = run(&s, &reserve, &[1]);
    assert_eq!(held.decks[0].held, ["Lt#1"]);
    // Held, not in play: nobody acts on it yet.
    let mv = action("move", json!({ "figure": "Lt", "path_in": [[20.0, 9.0]] }));
    refused(&held, &mv, RefusalKind::Cards);
    let play = action("play-reserved", json!({ "card": "Lt#1" }));
    let (played, _) = run(&held, &play, &[]);
    run(&played, &mv, &[]);
    // Kept to the End of Turn, it goes back into the deck.
    let (after, _) = run(&held, &action("draw", json!({})), &[1]);
    assert!(after.decks[0].held.is_empty());
    assert!(after.decks[0].draw.contains(&"Lt#1".to_owned()));
}

/// "+1 for each friendly figure to the flank": who stands to the flank is
/// data (`close_combat.flank_spread_deg`, `flank_gap_cm`, house values),
/// read by the engine: editing the data changes who adds.
#[test]
fn the_flank_angle_and_gap_are_read_from_the_data() {
    // Pte faces +y with W in contact ahead; Mate 1.3 in away (0.3 in, 0.76
    // cm, base to base), either square to his facing or 45 degrees behind
    // square, and not in contact with W.
    let pte = fig("Pte", "private", "Spanish", 20.0, 10.0, 90.0, "");
    let w = fig("W", "warrior", "Moros", 20.0, 11.8, 270.0, "");
    let d = 1.3 * 45f64.to_radians().cos();
    let square = fig("Mate", "private", "Spanish", 21.3, 10.0, 90.0, "");
    let behind = fig("Mate", "private", "Spanish", 20.0 + d, 10.0 - d, 90.0, "");
    let cc = action("close-combat", json!({ "a": "Pte", "b": "W" }));
    let flank = |rules: &dyn RuleSet, mate: &str| {
        let mut s = state("", "", &(pte.clone() + mate + &w));
        card(&mut s, "Pte");
        let (_, ev) = crate::rule_actions::run(rules, &s, &cc, &[6, 1]);
        notes(&ev).iter().any(|n| n.contains("Mate at his flank"))
    };
    let edited = |from: &str, to: &str| {
        let text = spotter::rules::little_colonial::BUILTIN_TOML.replace(from, to);
        assert_ne!(text, spotter::rules::little_colonial::BUILTIN_TOML);
        LittleColonialRules {
            data: LittleColonial::from_source(&SourceFile::from_text("edited.toml", text))
                .expect("edited data"),
        }
    };
    assert!(
        flank(&*rules(), &square),
        "square to him, 0.76 cm: at his flank"
    );
    assert!(!flank(&*rules(), &behind), "45 degrees off square: not");
    let wide = edited("flank_spread_deg = 30.0", "flank_spread_deg = 50.0");
    assert!(flank(&wide, &behind), "within the data's 50 degrees");
    let tight = edited("flank_gap_cm = 1.25", "flank_gap_cm = 0.5");
    assert!(!flank(&tight, &square), "beyond the data's 0.5 cm");
}

/// Spanish raw troops demoralised (the raw pile is empty) and the
/// reinforcements that refill it: 16 men, 5 chits, one a pile. `Open` stands
/// in clear terrain, `Edge` inside the eastern jungle at its edge, `Deep`
/// (in close formation) and `Loose` (in loose formation) deep inside the
/// western jungle; the reinforcement `Guide` arrives in the western jungle.
fn reinforcement_state(spanish: &str, moros: &str) -> GameState {
    let raw_pair = |name: &str, x: f64, y: f64, spacing: f64| {
        format!(
            r#"
[[unit]]
name = "{name}"
side = "Spanish"
formation = "line"
frontage = 2
count = 2
x_in = {x}
y_in = {y}
facing_deg = 90.0
spacing_in = {spacing}
weapon = "rifle"
melee_weapon = "bayonet"
experience = 2
status = {{ level = "raw" }}
"#
        )
    };
    let extra = r#"
[[terrain]]
name = "east jungle"
kinds = ["blocking"]
polygon_in = [[40.0, 30.0], [56.0, 30.0], [56.0, 50.0], [40.0, 50.0]]
[[terrain]]
name = "west jungle"
kinds = ["blocking"]
polygon_in = [[5.0, 30.0], [25.0, 30.0], [25.0, 55.0], [5.0, 55.0]]
[[unit]]
name = "Relief"
side = "Spanish"
formation = "line"
frontage = 15
count = 15
x_in = 30.0
y_in = 3.0
facing_deg = 90.0
weapon = "rifle"
melee_weapon = "bayonet"
experience = 2
status = { level = "regular", arrives = "2" }
"#
    .to_owned()
        + &raw_pair("Open", 50.0, 20.0, 1.0)
        + &raw_pair("Edge", 48.0, 30.8, 1.0)
        + &raw_pair("Deep", 15.0, 45.0, 1.0)
        + &raw_pair("Loose", 12.0, 48.0, 4.0)
        + &fig(
            "Guide",
            "private",
            "Spanish",
            15.0,
            40.0,
            90.0,
            r#"status = { arrives = "2" }"#,
        )
        + &fig("W", "warrior", "Moros", 58.0, 58.0, 270.0, "");
    let spanish = format!(r#"chits = "0,3,3,3,3"{spanish}"#);
    state(&spanish, moros, &extra)
}

/// May `who` act on a fresh individual soldier card (false: refused as
/// demoralised)?
fn acts(s: &GameState, who: &str) -> bool {
    let mut s = s.clone();
    s.rules.little_colonial_mut().card = Some("soldier:Spanish#9".into());
    let at = named(&s, who).placement.center_in_table;
    let mv = action(
        "move",
        json!({ "figure": who, "path_in": [[at.x - 0.5, at.y]] }),
    );
    match rules().check(&s, &mv) {
        Ok(()) => true,
        Err(RuleError::Refused(r)) if r.kind == RefusalKind::Morale => false,
        other => panic!("{who}: {other:?}"),
    }
}

/// The End of Turn card: the reshuffle, the reinforcements due next turn.
fn end_of_turn(s: &GameState) -> GameState {
    let mut s = s.clone();
    s.decks[0].draw = vec!["end-of-turn".into()];
    run(&s, &action("draw", json!({})), &[1]).0
}

/// The Guide moves on an individual soldier card `card`.
fn guide_moves(s: &GameState, card: &str, to: [f64; 2]) -> (GameState, Vec<Event>) {
    let mut s = s.clone();
    s.rules.little_colonial_mut().card = Some(card.into());
    let mv = action("move", json!({ "figure": "Guide", "path_in": [to] }));
    run(&s, &mv, &[])
}

/// Optional rule: "IF ANY figure, in clear terrain, can physically SEE the
/// reinforcements then it is considered that ALL figures, in that immediate
/// unit / formation (i.e., squad), can see the reinforcements and the
/// benefits are immediately applied. If a formation is surrounded by
/// blocking terrain but has at least one unit at the EDGE of the blocking
/// terrain ... with a clear view of the reinforcements, then the morale
/// benefit is applied at the beginning of the NEXT player turn. If a figure
/// or unit is DEEP within blocking terrain, then reinforcements MUST make
/// physical (base to base)contact before ANY benefits are applied. If the
/// unit / figure in blocking terrain is in close (base to base)formation
/// then the results are applied immediately. If the unit / figure is in
/// loose (open) formation, the benefits to morale to the entire unit cannot
/// be applied until the next turn."
#[test]
fn the_reinforcements_morale_benefit_waits_for_their_sight_or_contact() {
    let men = ["Open 1", "Open 2", "Edge 1", "Deep 1", "Deep 2", "Loose 1"];
    // Off (the scenario does not turn it on): the chits restore everyone
    // at once ("a previously demoralised unit reverts back to its nominal
    // state upon the arrival of reinforcements").
    let off = reinforcement_state("", "");
    assert!(!acts(&off, "Deep 1"), "the raw pile is empty: demoralised");
    let off = end_of_turn(&off);
    assert_eq!(side_st(&off, 0).empty_piles(), 0);
    for who in men {
        assert!(
            acts(&off, who),
            "{who}: the benefit at once without the option"
        );
    }
    // On, when every side agrees.
    let on = r#", reinforcement-sight = "true""#;
    let s = reinforcement_state(on, r#"reinforcement-sight = "true""#);
    assert!(side_st(&s, 0).reinforcement_sight);
    let s = end_of_turn(&s);
    assert_eq!(s.turn, 2);
    assert_eq!(side_st(&s, 0).empty_piles(), 0, "the chits joined");
    // Seen from clear terrain: at once, for the whole unit.
    assert!(acts(&s, "Open 1") && acts(&s, "Open 2"));
    // Seen from the edge of the jungle: next turn.
    assert!(!acts(&s, "Edge 1") && !acts(&s, "Edge 2"));
    // Deep within: not until a reinforcement's base touches them.
    assert!(!acts(&s, "Deep 1") && !acts(&s, "Loose 1"));
    // The Guide reaches the close formation: the benefit at once.
    let (s, ev) = guide_moves(&s, "soldier:Spanish#1", [15.0, 44.0]);
    assert!(
        notes(&ev).iter().any(|n| n.contains("close formation")),
        "{:?}",
        notes(&ev)
    );
    assert!(acts(&s, "Deep 1") && acts(&s, "Deep 2"));
    assert!(!acts(&s, "Loose 1"), "not touched yet");
    // He reaches the loose formation: not until the next turn.
    let (s, ev) = guide_moves(&s, "soldier:Spanish#2", [14.0, 46.9]);
    assert!(notes(&ev).iter().any(|n| n.contains("loose formation")));
    assert!(!acts(&s, "Loose 1") && !acts(&s, "Loose 2"));
    assert!(!acts(&s, "Edge 1"));
    // The next turn: the edge and the loose formation have the benefit.
    let s = end_of_turn(&s);
    assert_eq!(s.turn, 3);
    for who in ["Edge 1", "Edge 2", "Loose 1", "Loose 2", "Deep 1", "Open 1"] {
        assert!(acts(&s, who), "{who} on turn 3");
    }
}
