// The frames. Each one is balanced between its two nouns: the deciding word (or the pronoun's form)
// is drawn for either noun with equal chance, so where a noun stands never gives the answer away.
// Template syntax (corpus.cpp parses it): <A> <B> <C> nouns, <mA> <mB> a modifier before A or B,
// <pro> the pronoun, <pos> the possessive, <be> "was"/"were" agreeing with the pronoun, <beA> <beB>
// agreeing with A or B, <is> <isA> <isB> the same in the present, <doesnotA> <doesnotB> "does not",
// "doesn't", "do not" or "don't" agreeing with A or B, <adj> the deciding word or phrase, {x|y z} one
// of the alternatives.
#include "frames.h"

namespace abh::train::corpus {

using C = NounClass;
using D = Decide;
constexpr C kNone = C::kCount;

const std::initializer_list<FrameSpec> kFrames = {
    // because / although / when / after / so, with an animal and a path
    {"because-adjective",
     "the <A> {avoided|stayed off|kept away from|would not cross|wouldn't cross} the <B> because <pro> <be> <adj>",
     D::kMeaning, C::kAnimal, C::kPath, kNone, "animate", "path", false},
    {"because-too-adjective",
     "the <A> {did not|didn't} {cross|walk across|run across} the <B> because <pro> <be> too <adj>", D::kMeaning,
     C::kAnimal, C::kPath, kNone, "animate-too", "path-too", false},
    {"although", "the <A> {crossed|walked along|ran across} the <B> although <pro> <be> <adj>", D::kMeaning, C::kAnimal,
     C::kPath, kNone, "animate", "path", false},
    {"when-got", "the <A> {left|walked away from|ran away from} the <B> when <pro> {got|became} <adj>", D::kMeaning,
     C::kAnimal, C::kPath, kNone, "animate-get", "path-get", false},
    {"after-got-food",
     "the <A> {stopped eating|would not eat|wouldn't eat|left} the <B> after <pro> {got|became} <adj>", D::kMeaning,
     C::kAnimal, C::kFood, kNone, "animate-full", "food-spoiled", false},
    {"so-must-have-been", "the <A> {ate|finished|gobbled up} the <B> {quickly|at once} so <pro> must have been <adj>",
     D::kMeaning, C::kAnimal, C::kFood, kNone, "hungry", "food-good", false},
    // passive voice: the animal now stands second
    {"passive", "the <B> <beB> {avoided|not crossed} by the <A> because <pro> <be> <adj>", D::kMeaning, C::kAnimal,
     C::kPath, kNone, "animate", "path", false},
    {"passive-too", "the <B> <beB> not crossed by the <A> because <pro> <be> too <adj>", D::kMeaning, C::kAnimal,
     C::kPath, kNone, "animate-too", "path-too", false},
    {"passive-when", "the <B> <beB> {left|abandoned} by the <A> when <pro> {got|became} <adj>", D::kMeaning, C::kAnimal,
     C::kPath, kNone, "animate-get", "path-get", true},
    // size and fit: "big" means the contents, "small" the container; both noun orders
    {"fit-size", "the <A> {did not|didn't} fit {in|into|inside} the <B> because <pro> <be> too <adj>", D::kMeaning,
     C::kThing, C::kContainer, kNone, "size-contents", "size-container", false},
    {"fit-hold", "the <A> {could not|couldn't} hold the <B> because <pro> <be> too <adj>", D::kMeaning, C::kContainer,
     C::kThing, kNone, "size-container", "size-contents", false},
    {"fit-passive", "the <A> {could not|couldn't} be {put|packed} {in|into} the <B> because <pro> <be> too <adj>",
     D::kMeaning, C::kThing, C::kContainer, kNone, "size-contents", "size-container", false},
    {"fit-furniture", "the <A> {did not|didn't} fit {in|into} the <B> because <pro> <be> too <adj>", D::kMeaning,
     C::kFurniture, C::kVehicle, kNone, "size-contents", "size-vehicle", false},
    {"pass-through", "the <A> {could not|couldn't} {pass|go|get} through the <B> because <pro> <be> too <adj>",
     D::kMeaning, C::kVehicle, C::kOpening, kNone, "mover-big", "opening-small", false},
    {"pass-through-furniture", "the <A> {would not|wouldn't} go through the <B> because <pro> <be> too <adj>",
     D::kMeaning, C::kFurniture, C::kOpening, kNone, "mover-big", "opening-small", false},
    {"let-through",
     "the <A> {would not let|could not let|wouldn't let|couldn't let} the <B> through because <pro> <be> too <adj>",
     D::kMeaning, C::kOpening, C::kVehicle, kNone, "opening-small", "mover-big", false},
    {"drive-down",
     "the <A> {could not|couldn't} {drive down|drive along|get down} the <B> because <pro> <be> too <adj>", D::kMeaning,
     C::kVehicle, C::kPath, kNone, "vehicle-big", "path-narrow", true},
    // handling things and food
    {"carry", "the <A> {could not|couldn't} {carry|lift|pick up} the <B> because <pro> <be> too <adj>", D::kMeaning,
     C::kAnimal, C::kThing, kNone, "carrier-weak", "load-heavy", false},
    {"drop", "the <A> dropped the <B> because <pro> <be> <adj>", D::kMeaning, C::kAnimal, C::kThing, kNone,
     "animate-startle", "thing-handling", false},
    {"eat", "the <A> {ate|swallowed|gobbled up} the <B> because <pro> <be> <adj>", D::kMeaning, C::kAnimal, C::kFood,
     kNone, "hungry", "food-good", false},
    {"not-eat-too", "the <A> {did not|didn't} eat the <B> because <pro> <be> too <adj>", D::kMeaning, C::kAnimal,
     C::kFood, kNone, "animate-full", "food-bad", false},
    {"although-not-eat", "the <A> {did not|didn't} {eat|touch} the <B> although <pro> <be> <adj>", D::kMeaning,
     C::kAnimal, C::kFood, kNone, "hungry", "food-good", true},
    // plants and water
    {"hide-behind", "the <A> {hid behind|rested under|slept under|sat under} the <B> because <pro> <be> <adj>",
     D::kMeaning, C::kAnimal, C::kTree, kNone, "animate-hide", "tree", false},
    {"sniff-flower", "the <A> {sniffed|smelled|looked at} the <B> because <pro> <be> <adj>", D::kMeaning, C::kAnimal,
     C::kFlower, kNone, "animate-curious", "flower", false},
    {"swim-across", "the <A> {did not|didn't} swim across the <B> because <pro> <be> too <adj>", D::kMeaning,
     C::kAnimal, C::kWater, kNone, "swimmer-weak", "water", false},
    // adjectives before the nouns, prepositional distractors, relative clauses
    {"adjective-before-noun",
     "the <mA> <A> {avoided|would not cross|wouldn't cross} the <mB> <B> because <pro> <be> <adj>", D::kMeaning,
     C::kAnimal, C::kPath, kNone, "animate", "path", false},
    {"adjective-before-fit", "the <mA> <A> {did not|didn't} fit in the <mB> <B> because <pro> <be> too <adj>",
     D::kMeaning, C::kThing, C::kContainer, kNone, "size-contents", "size-container", false},
    {"distractor-subject",
     "the <A> {near|beside|next to|behind} the <C> {avoided|would not cross|wouldn't cross} the <B> because <pro> <be> "
     "<adj>",
     D::kMeaning, C::kAnimal, C::kPath, C::kTree, "animate", "path", false},
    {"distractor-object",
     "the <A> {avoided|would not cross|wouldn't cross} the <B> {near|beside|next to} the <C> because <pro> <be> <adj>",
     D::kMeaning, C::kAnimal, C::kPath, C::kTree, "animate", "path", false},
    {"distractor-food", "the <A> {by|near|under} the <C> ate the <B> because <pro> <be> <adj>", D::kMeaning, C::kAnimal,
     C::kFood, C::kFurniture, "hungry", "food-good", false},
    {"relative-subject",
     "the <A> that {slept|sat|lived} {near|by|under} the <C> {avoided|would not cross|wouldn't cross} the <B> because "
     "<pro> <be> "
     "<adj>",
     D::kMeaning, C::kAnimal, C::kPath, C::kTree, "animate", "path", false},
    {"relative-object",
     "the <A> {avoided|would not cross|wouldn't cross} the <B> that {led|ran|went} past the <C> because <pro> <be> "
     "<adj>",
     D::kMeaning, C::kAnimal, C::kPath, C::kTree, "animate", "path", true},
    {"relative-fit",
     "the <A> that the <C> {brought|found|bought} {did not|didn't} fit in the <B> because <pro> <be> too <adj>",
     D::kMeaning, C::kThing, C::kContainer, C::kPerson, "size-contents", "size-container", false},
    // two sentences (the full stop is not a token)
    {"two-sentences", "the <A> {crossed|walked along|ran across} the <B> <pro> <be> <adj>", D::kMeaning, C::kAnimal,
     C::kPath, kNone, "animate", "path", false},
    {"two-sentences-food", "the <A> {ate|sniffed} the <B> <pro> <be> <adj>", D::kMeaning, C::kAnimal, C::kFood, kNone,
     "hungry", "food-good", false},
    // possessives: the possessed word says whose it is
    {"possessive-building", "the <A> {waited outside|stayed outside|sat outside} the <B> because <pos> <adj>",
     D::kMeaning, C::kAnimal, C::kBuilding, kNone, "animal-part", "building-part", false},
    {"possessive-container", "the <A> {could not|couldn't} open the <B> because <pos> <adj>", D::kMeaning, C::kAnimal,
     C::kContainer, kNone, "animal-paw", "container-part", false},
    // number agreement: "it" and "they" pick different nouns in the same sentence
    {"number-they", "the <A> {chased|followed|watched} the <B> because <pro> <be> <adj>", D::kNumber, C::kAnimal,
     C::kAnimal, kNone, "animate", "", false},
    {"number-passive", "the <A> <beA> {chased|followed|watched} by the <B> because <pro> <be> <adj>", D::kNumber,
     C::kAnimal, C::kAnimal, kNone, "animate", "", false},
    {"number-things", "the <A> <beA> {beside|next to|behind} the <B> and <pro> <be> <adj>", D::kNumber, C::kThing,
     C::kFurniture, kNone, "thing-look", "", false},
    {"number-possessive", "the <A> {watched|followed} the <B> because <pos> <adj>", D::kNumber, C::kAnimal, C::kAnimal,
     kNone, "animal-possession", "", false},
    {"number-two-sentences", "the <A> {chased|followed} the <B> <pro> <be> <adj>", D::kNumber, C::kAnimal, C::kAnimal,
     kNone, "animate", "", true},
    {"number-person", "the <A> {thanked|helped|met|visited} the <B> because <pro> <be> <adj>", D::kNumberPerson, kNone,
     kNone, kNone, "person-feeling", "", false},
    // he / she: the pronoun's gender picks the noun
    {"gender", "the <A> {thanked|helped|called|visited|hugged} the <B> because <pro> <be> <adj>", D::kGender, kNone,
     kNone, kNone, "person-feeling", "", false},
    {"gender-neutral", "the <A> {helped|thanked|called|visited} the <B> because <pro> <be> <adj>", D::kGenderNeutral,
     kNone, kNone, kNone, "person-feeling", "", false},
    {"gender-passive", "the <A> was {helped|thanked|visited} by the <B> because <pro> <be> <adj>", D::kGender, kNone,
     kNone, kNone, "person-feeling", "", false},
    {"gender-possessive", "the <A> {called|visited|phoned} the <B> because <pos> <adj>", D::kGender, kNone, kNone,
     kNone, "person-possession", "", false},
    {"gender-two-sentences", "the <A> {met|saw|greeted} the <B> <pro> <be> <adj>", D::kGender, kNone, kNone, kNone,
     "person-feeling", "", true},
    // the present tense, and more ways of saying "because"
    {"present-too", "the <A> <doesnotA> {cross|want to cross} the <B> because <pro> <is> too <adj>", D::kMeaning,
     C::kAnimal, C::kPath, kNone, "animate-too", "path-too", false},
    {"present-fit", "the <A> <doesnotA> fit {in|into|inside} the <B> because <pro> <is> too <adj>", D::kMeaning,
     C::kThing, C::kContainer, kNone, "size-contents", "size-container", false},
    {"present-pass-through",
     "the <A> {cannot|can't|will not|won't} {pass|go|get} through the <B> because <pro> <is> too <adj>", D::kMeaning,
     C::kFurniture, C::kOpening, kNone, "mover-big", "opening-small", false},
    {"present-eat", "the <A> {will not|won't} eat the <B> because <pro> <is> too <adj>", D::kMeaning, C::kAnimal,
     C::kFood, kNone, "animate-full", "food-bad", false},
    {"present-passive", "the <B> <isB> {avoided|not crossed} by the <A> because <pro> <is> <adj>", D::kMeaning,
     C::kAnimal, C::kPath, kNone, "animate", "path", false},
    {"present-gender", "the <A> {likes|trusts|admires|thanks} the <B> because <pro> <is> <adj>", D::kGender, kNone,
     kNone, kNone, "person-feeling", "", false},
    {"since", "the <A> {avoided|stayed off|would not cross|wouldn't cross} the <B> {since|as} <pro> <be> <adj>",
     D::kMeaning, C::kAnimal, C::kPath, kNone, "animate", "path", false},
    {"but-too", "the <A> {tried|wanted} to cross the <B> but <pro> <be> too <adj>", D::kMeaning, C::kAnimal, C::kPath,
     kNone, "animate-too", "path-too", true},
    {"person-puts",
     "the <C> {could not|couldn't} {put|fit|squeeze} the <A> {in|into} the <B> because <pro> <be> too <adj>",
     D::kMeaning, C::kThing, C::kContainer, C::kPerson, "size-contents", "size-container", false},
    {"number-present", "the <A> <isA> {watching|following|chasing} the <B> because <pro> <is> <adj>", D::kNumber,
     C::kAnimal, C::kAnimal, kNone, "animate", "", false},
};

}  // namespace abh::train::corpus
