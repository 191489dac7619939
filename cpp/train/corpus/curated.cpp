// The hand-written half of the lexicon (see curated.h). Every list here was read against the
// sentences the frames make with it: `abh_corpus --class animal` prints a class, `abh_corpus 50`
// prints sentences.
#include "curated.h"

namespace abh::train::corpus {

using C = NounClass;

// Order matters: a noun takes the first class whose subtree holds its most frequent sense.
const std::initializer_list<ClassRoot> kClassRoots = {
    {C::kMale, "male", 2},                // male person
    {C::kFemale, "female", 2},            // female person
    {C::kVehicle, "wheeled_vehicle", 1},  // before container: WordNet files "car" under container too
    {C::kFurniture, "furniture", 1},      //
    {C::kContainer, "container", 1},      //
    {C::kBuilding, "building", 1},        //
    {C::kPath, "road", 1},                //
    {C::kPath, "street", 1},              //
    {C::kWater, "body_of_water", 1},      //
    {C::kFood, "food", 2},                // solid food (sense 1 is any nutrient, drinks included)
    {C::kFood, "edible_fruit", 1},        //
    {C::kFood, "vegetable", 1},           //
    {C::kFlower, "flower", 1},            //
    {C::kTree, "woody_plant", 1},         // trees and shrubs
    {C::kThing, "implement", 1},          //
    {C::kThing, "toy", 1},                //
    {C::kThing, "clothing", 1},           //
    {C::kThing, "musical_instrument", 1},
    {C::kAnimal, "animal", 1},  //
    {C::kPerson, "person", 1},  //
};

const std::initializer_list<ClassRoot> kExcludedRoots = {
    {C::kPerson, "bad_person", 1},
    {C::kPerson, "unwelcome_person", 1},
    {C::kPerson, "wrongdoer", 1},
    {C::kPerson, "disreputable_person", 1},
    {C::kPerson, "victim", 1},
    {C::kPerson, "sick_person", 1},
    {C::kPerson, "unfortunate", 1},
    {C::kPerson, "religious_person", 1},
    {C::kPerson, "inhabitant", 1},
    {C::kPerson, "lover", 1},
    {C::kPerson, "alcoholic", 1},
    // Animals that cannot walk a road or eat a sandwich: the frames send animals across paths.
    {C::kAnimal, "fish", 1},
    {C::kAnimal, "aquatic_mammal", 1},
    {C::kAnimal, "mollusk", 1},
    {C::kAnimal, "cnidarian", 1},
    {C::kAnimal, "crustacean", 1},
    {C::kAnimal, "echinoderm", 1},
    {C::kAnimal, "larva", 1},
    {C::kAnimal, "worm", 1},
};

const std::initializer_list<CuratedNoun> kCuratedNouns = {
    {C::kMale,
     {"boy",          "man",         "king",       "father",      "son",        "brother",    "uncle",     "husband",
      "prince",       "grandfather", "nephew",     "gentleman",   "grandson",   "boyfriend",  "emperor",   "duke",
      "lord",         "monk",        "policeman",  "fisherman",   "postman",    "fireman",    "schoolboy", "stepfather",
      "godfather",    "landlord",    "headmaster", "businessman", "salesman",   "sportsman",  "horseman",  "widower",
      "bridegroom",   "knight",      "dad",        "lad",         "stepson",    "earl",       "baron",     "sultan",
      "pharaoh",      "daddy",       "choirboy",   "busboy",      "manservant", "forefather", "groom",     "masseur",
      "schoolmaster", "newsboy",     "cowboy"}},
    {C::kFemale,
     {"girl",        "woman",         "queen",        "mother",  "daughter",  "sister",         "aunt",
      "wife",        "princess",      "grandmother",  "niece",   "lady",      "granddaughter",  "girlfriend",
      "empress",     "duchess",       "nun",          "actress", "waitress",  "schoolgirl",     "stepmother",
      "godmother",   "landlady",      "headmistress", "bride",   "widow",     "hostess",        "heroine",
      "policewoman", "businesswoman", "housewife",    "maid",    "mum",       "stepdaughter",   "countess",
      "baroness",    "ballerina",     "governess",    "grandma", "mama",      "mommy",          "granny",
      "fishwife",    "chambermaid",   "confidante",   "chorine", "salesgirl", "schoolmistress", "starlet",
      "witch",       "saleslady"}},
    {C::kPath, {"road",     "street",    "path",     "trail",    "track",    "lane",      "corridor",
                "hallway",  "alley",     "bridge",   "sidewalk", "pavement", "avenue",    "highway",
                "footpath", "boulevard", "motorway", "driveway", "aisle",    "passageway"}},
    {C::kOpening,
     {"door", "doorway", "gate", "gateway", "entrance", "tunnel", "arch", "archway", "window", "hole", "gap", "opening",
      "hatch", "passage", "hatchway", "portal"}},
    {C::kWater, {"river", "lake", "stream", "pond", "creek", "canal", "sea", "brook", "pool", "lagoon", "bay"}},
    {C::kAnimal,
     {"tiger",        "zebra",     "giraffe", "kangaroo",   "hamster",  "donkey",   "camel",     "cheetah",   "leopard",
      "gorilla",      "penguin",   "ostrich", "hedgehog",   "badger",   "otter",    "beaver",    "raccoon",   "skunk",
      "llama",        "puppy",     "kitten",  "parrot",     "turtle",   "tortoise", "crocodile", "alligator", "chicken",
      "hippopotamus", "koala",     "panda",   "chimpanzee", "mole",     "bat",      "ferret",    "gerbil",    "lamb",
      "pony",         "goat",      "bear",    "wolf",       "lion",     "horse",    "cat",       "dog",       "mouse",
      "rabbit",       "duck",      "goose",   "swan",       "hen",      "rooster",  "owl",       "crow",      "fox",
      "squirrel",     "frog",      "toad",    "snake",      "lizard",   "spider",   "bee",       "butterfly", "robin",
      "boar",         "blackbird", "buzzard", "stag",       "opossum",  "polecat",  "kestrel",   "goldfinch", "firefly",
      "tarantula",    "lark",      "bullock", "pelican",    "flamingo", "raven",    "heron",     "jaguar",    "cougar",
      "lynx",         "hyena",     "yak",     "ox",         "mule",     "piglet",   "duckling",  "foal"}},
    {C::kThing,
     {"ball",        "book",       "phone",    "key",      "doll",       "camera",     "clock",     "lamp",
      "watch",       "radio",      "laptop",   "mirror",   "candle",     "bell",       "hammer",    "umbrella",
      "pillow",      "blanket",    "guitar",   "violin",   "trophy",     "statue",     "picture",   "helmet",
      "shoe",        "boot",       "glove",    "coat",     "hat",        "kite",       "brush",     "plate",
      "spoon",       "fork",       "knife",    "towel",    "computer",   "torch",      "globe",     "puzzle",
      "cushion",     "drum",       "trumpet",  "flute",    "painting",   "teapot",     "kettle",    "racket",
      "skateboard",  "sweater",    "jacket",   "scarf",    "dress",      "map",        "necklace",  "bracelet",
      "ring",        "pearl",      "diamond",  "jewel",    "flashlight", "lantern",    "timer",     "telephone",
      "stereo",      "microphone", "keyboard", "printer",  "tablet",     "calculator", "notebook",  "dictionary",
      "magazine",    "newspaper",  "letter",   "postcard", "photograph", "poster",     "frame",     "sculpture",
      "teddy",       "cardigan",   "frock",    "denim",    "pyjama",     "slipper",    "sandal",    "sneaker",
      "mitten",      "belt",       "wrench",   "drill",    "ladder",     "rake",       "hose",      "sponge",
      "candlestick", "vacuum",     "toaster",  "heater",   "kettledrum", "tambourine", "harmonica", "accordion",
      "cello",       "saxophone",  "clarinet", "oboe",     "trombone",   "tuba",       "dumbbell",  "barbell",
      "skate",       "sled"}},
    {C::kContainer,
     {"box",   "bag",      "suitcase", "basket",   "drawer",  "cupboard", "backpack", "jar",     "bucket",  "bin",
      "crate", "envelope", "pocket",   "purse",    "wallet",  "bottle",   "carton",   "sack",    "bowl",    "cup",
      "mug",   "pot",      "vase",     "goblet",   "beaker",  "mailbag",  "duffel",   "pannier", "satchel", "hamper",
      "chest", "teacup",   "thermos",  "lunchbox", "toolbox", "shoebox",  "glass",    "locker",  "cabinet", "trunk",
      "case",  "tin",      "barrel",   "cage",     "kennel",  "safe"}},
    {C::kVehicle,
     {"car", "truck", "bus", "van", "lorry", "tractor", "bicycle", "bike", "motorcycle", "wagon", "cart", "ambulance",
      "taxi", "caravan", "trailer", "jeep", "limousine", "minibus", "scooter"}},
    {C::kFurniture,
     {"sofa",    "couch",        "table",    "desk",   "bed",        "wardrobe", "bookcase",  "piano",
      "fridge",  "refrigerator", "armchair", "chair",  "bench",      "mattress", "dresser",   "sideboard",
      "cot",     "crib",         "stool",    "settee", "ottoman",    "bunkbed",  "hammock",   "recliner",
      "freezer", "cooker",       "oven",     "stove",  "dishwasher", "dryer",    "television"}},
    {C::kBuilding,
     {"house",     "school",      "barn",     "church",   "shop",       "hospital",   "library",     "hotel",
      "cottage",   "castle",      "palace",   "museum",   "station",    "bakery",     "shed",        "garage",
      "factory",   "farmhouse",   "cinema",   "theatre",  "restaurant", "cafe",       "stable",      "temple",
      "chapel",    "hut",         "cabin",    "office",   "bank",       "courthouse", "observatory", "hostel",
      "bathhouse", "supermarket", "pharmacy", "bungalow", "mansion",    "lighthouse", "windmill",    "warehouse",
      "prison",    "gym",         "stadium",  "pub",      "clinic",     "tower"}},
    {C::kTree,
     {"tree",   "bush",  "oak",      "pine",     "willow",   "elm",    "maple", "birch", "hedge",      "shrub",
      "fir",    "cedar", "beech",    "sycamore", "chestnut", "poplar", "yew",   "holly", "cottonwood", "juniper",
      "laurel", "hazel", "mulberry", "hawthorn", "redwood",  "spruce", "larch", "alder", "eucalyptus", "bamboo"}},
    {C::kFlower, {"rose",     "daisy",  "tulip",     "lily",     "sunflower",   "poppy",     "orchid",
                  "daffodil", "lilac",  "dandelion", "bluebell", "marigold",    "buttercup", "carnation",
                  "geranium", "pansy",  "primrose",  "petunia",  "aster",       "anemone",   "cornflower",
                  "hyacinth", "crocus", "iris",      "magnolia", "honeysuckle", "jasmine",   "foxglove"}},
    {C::kFood, {"bread",     "apple",     "sandwich",   "cake",      "cheese",    "meat",       "soup",     "rice",
                "pizza",     "banana",    "orange",     "carrot",    "potato",    "biscuit",    "cookie",   "pie",
                "sausage",   "egg",       "steak",      "bone",      "pear",      "peach",      "cracker",  "burger",
                "pasta",     "salad",     "muffin",     "toast",     "chocolate", "candy",      "pancake",  "doughnut",
                "cupcake",   "pudding",   "noodle",     "dumpling",  "hamburger", "hotdog",     "lasagna",  "spaghetti",
                "pastry",    "casserole", "cheesecake", "lollipop",  "mango",     "plum",       "cherry",   "apricot",
                "raspberry", "blueberry", "grapefruit", "tangerine", "pineapple", "watermelon", "cucumber", "onion",
                "lettuce",   "broccoli",  "mushroom",   "pumpkin",   "turnip",    "sprout",     "walnut",   "peanut",
                "almond"}},
};

}  // namespace abh::train::corpus
