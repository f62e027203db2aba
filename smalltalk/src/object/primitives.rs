//! Every primitive number the engine implements, by name: one constant per
//! `<primitive: N>` of the kernel's methods (and of the repository's own,
//! `persist/repository.gs`), documented with the methods that use it. The
//! families, the interpreter's own fast paths and the compiler name
//! primitives only through these constants; `kernel/VM.md` §3 says what each
//! does.
//!
//! `build.rs` holds this table and the kernel to each other: a number a kernel
//! method uses must have a constant here, a method a constant's doc names must
//! use that number, and the numbers here are exactly the ones
//! `interp::primitive::is_known_primitive` accepts. It sits in the object
//! layer because a method's code (`code.rs`) already knows the few the
//! interpreter runs without a primitive call (`at:`, `at:put:`, `size`,
//! `value`).

// ----- Object (any receiver): 1..=39 -----
/// `Object>>==`
pub const OBJECT_IDENTICAL: u16 = 1;
/// `Object>>class`
pub const OBJECT_CLASS: u16 = 2;
/// `Object>>identityHash`
pub const OBJECT_IDENTITY_HASH: u16 = 3;
/// `Object>>basicSize`
pub const OBJECT_BASIC_SIZE: u16 = 4;
/// `Object>>basicAt:`
pub const OBJECT_BASIC_AT: u16 = 5;
/// `Object>>basicAt:put:`
pub const OBJECT_BASIC_AT_PUT: u16 = 6;
/// `Object>>instVarAt:`
pub const OBJECT_INST_VAR_AT: u16 = 7;
/// `Object>>instVarAt:put:`
pub const OBJECT_INST_VAR_AT_PUT: u16 = 8;
/// `Object>>shallowCopy`
pub const OBJECT_SHALLOW_COPY: u16 = 9;
/// `Object>>perform:`, `Object>>perform:with:`, `Object>>perform:with:with:`,
/// `Object>>perform:with:with:with:`, `Object>>perform:with:with:with:with:`
pub const OBJECT_PERFORM: u16 = 10;
/// `Object>>perform:withArguments:`
pub const OBJECT_PERFORM_WITH_ARGUMENTS: u16 = 11;
/// `Object>>isKindOf:`
pub const OBJECT_IS_KIND_OF: u16 = 12;
/// `Object>>respondsTo:`
pub const OBJECT_RESPONDS_TO: u16 = 13;
/// `Object>>_basicPrintString`
pub const OBJECT_PRINT_STRING: u16 = 14;
/// `Object>>~~`
pub const OBJECT_NOT_IDENTICAL: u16 = 15;
/// `Object>>=`
pub const OBJECT_EQUAL: u16 = 16;
/// `Object>>hash`
pub const OBJECT_HASH: u16 = 17;
/// `Object>>_basicDisplayString`
pub const OBJECT_DISPLAY_STRING: u16 = 18;
/// `Object>>isMemberOf:`
pub const OBJECT_IS_MEMBER_OF: u16 = 19;
/// `Object>>become:`
pub const OBJECT_BECOME: u16 = 20;
/// `ArrayedCollection>>size`, `Object>>size`
pub const OBJECT_SIZE: u16 = 21;
/// `Object>>at:`
pub const OBJECT_AT: u16 = 22;
/// `Object>>at:put:`
pub const OBJECT_AT_PUT: u16 = 23;
/// `Object>>_signalError:args:`
pub const OBJECT_SIGNAL_ERROR: u16 = 24;
/// `Object>>isInvariant`
pub const OBJECT_IS_INVARIANT: u16 = 26;
/// `Object>>immediateInvariant`
pub const OBJECT_IMMEDIATE_INVARIANT: u16 = 27;
/// `Object>>doesNotUnderstand:`
pub const OBJECT_DOES_NOT_UNDERSTAND: u16 = 28;
/// `ArrayedCollection>>_basicSize:`, `Object>>_basicSize:`
pub const OBJECT_SET_BASIC_SIZE: u16 = 29;

// ----- Behavior: 40..=89 -----
/// `Behavior>>basicNew`
pub const BEHAVIOR_BASIC_NEW: u16 = 40;
/// `Behavior>>basicNew:`
pub const BEHAVIOR_BASIC_NEW_SIZED: u16 = 41;
/// `Behavior>>name`
pub const BEHAVIOR_NAME: u16 = 42;
/// `Behavior>>superclass`
pub const BEHAVIOR_SUPERCLASS: u16 = 43;
/// `Behavior>>instVarNames`
pub const BEHAVIOR_INST_VAR_NAMES: u16 = 44;
/// `Behavior>>allInstVarNames`
pub const BEHAVIOR_ALL_INST_VAR_NAMES: u16 = 45;
/// `Behavior>>selectors`
pub const BEHAVIOR_SELECTORS: u16 = 46;
/// `Behavior>>compileMethod:dictionaries:category:environmentId:`
pub const BEHAVIOR_COMPILE_METHOD: u16 = 47;
/// `Behavior>>removeSelector:`
pub const BEHAVIOR_REMOVE_SELECTOR: u16 = 48;
/// `Behavior>>sourceCodeAt:`
pub const BEHAVIOR_SOURCE_CODE_AT: u16 = 49;
/// `Behavior>>_compiledMethodAtOrNil:`
pub const BEHAVIOR_COMPILED_METHOD_AT: u16 = 50;
/// `Behavior>>includesSelector:`
pub const BEHAVIOR_INCLUDES_SELECTOR: u16 = 51;
/// `Behavior>>categoryNames`
pub const BEHAVIOR_CATEGORY_NAMES: u16 = 52;
/// `Behavior>>selectorsIn:`
pub const BEHAVIOR_SELECTORS_IN: u16 = 53;
/// `Behavior>>categoryOfSelector:`
pub const BEHAVIOR_CATEGORY_OF_SELECTOR: u16 = 54;
/// `Behavior>>subclasses`
pub const BEHAVIOR_SUBCLASSES: u16 = 55;
/// `Behavior>>comment`
pub const BEHAVIOR_COMMENT: u16 = 56;
/// `Behavior>>comment:`
pub const BEHAVIOR_SET_COMMENT: u16 = 57;
/// `Behavior>>category`
pub const BEHAVIOR_CATEGORY: u16 = 58;
/// `Behavior>>category:`
pub const BEHAVIOR_SET_CATEGORY: u16 = 59;
/// `Behavior>>classVarNames`
pub const BEHAVIOR_CLASS_VAR_NAMES: u16 = 60;
/// `Class>>_subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:format:`
pub const CLASS_DEFINE_SUBCLASS: u16 = 61;
/// `Behavior>>isMeta`
pub const BEHAVIOR_IS_META: u16 = 62;
/// `Behavior>>instSize`
pub const BEHAVIOR_INST_SIZE: u16 = 63;
/// `Behavior>>isBytes`
pub const BEHAVIOR_IS_BYTES: u16 = 64;
/// `Behavior>>isIndexable`
pub const BEHAVIOR_IS_INDEXABLE: u16 = 65;
/// `Behavior>>lookupSelector:`
pub const BEHAVIOR_LOOKUP_SELECTOR: u16 = 66;
/// `Behavior>>thisClass`, `Behavior>>theNonMetaClass`
pub const BEHAVIOR_THIS_CLASS: u16 = 67;
/// `Behavior>>sharedPools`
pub const BEHAVIOR_SHARED_POOLS: u16 = 68;
/// `Behavior>>moveMethod:toCategory:`
pub const BEHAVIOR_MOVE_METHOD_TO_CATEGORY: u16 = 69;
/// `Behavior>>classVarAt:`
pub const BEHAVIOR_CLASS_VAR_AT: u16 = 70;
/// `Behavior>>classVarAt:put:`
pub const BEHAVIOR_CLASS_VAR_AT_PUT: u16 = 71;
/// `Behavior>>allSuperclasses`
pub const BEHAVIOR_ALL_SUPERCLASSES: u16 = 72;
/// `Behavior>>inheritsFrom:`
pub const BEHAVIOR_INHERITS_FROM: u16 = 73;
/// `Behavior>>definition`
pub const BEHAVIOR_DEFINITION: u16 = 74;
/// `Behavior>>classHistory`
pub const BEHAVIOR_CLASS_HISTORY: u16 = 75;
/// `Behavior>>removeAllMethods`
pub const BEHAVIOR_REMOVE_ALL_METHODS: u16 = 76;
/// `Behavior>>new`
pub const BEHAVIOR_NEW: u16 = 77;
/// `Behavior>>new:`
pub const BEHAVIOR_NEW_SIZED: u16 = 78;
/// `Class>>_optionsArray`: the class's own creation options
pub const BEHAVIOR_OPTIONS: u16 = 79;
/// `Class>>_subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:format:newVersionOf:`
pub const CLASS_DEFINE_SUBCLASS_VERSION: u16 = 80;

// ----- GsNMethod: 90..=99 -----
/// `GsNMethod>>selector`
pub const METHOD_SELECTOR: u16 = 90;
/// `GsNMethod>>sourceString`
pub const METHOD_SOURCE_STRING: u16 = 91;
/// `GsNMethod>>inClass`
pub const METHOD_IN_CLASS: u16 = 92;
/// `GsNMethod>>category`
pub const METHOD_CATEGORY: u16 = 93;
/// `GsNMethod>>literals`
pub const METHOD_LITERALS: u16 = 94;
/// `GsNMethod>>environmentId`
pub const METHOD_ENVIRONMENT_ID: u16 = 95;
/// `GsNMethod>>instVarsAccessed`
pub const METHOD_INST_VARS_ACCESSED: u16 = 96;
/// `GsNMethod>>_selectorsSent`
pub const METHOD_SELECTORS_SENT: u16 = 97;
/// `GsNMethod>>numArgs`
pub const METHOD_NUM_ARGS: u16 = 98;

// ----- Numbers: 100..=159 -----
/// `Number>>+`
pub const NUMBER_ADD: u16 = 100;
/// `Number>>-`
pub const NUMBER_SUBTRACT: u16 = 101;
/// `Number>>*`
pub const NUMBER_MULTIPLY: u16 = 102;
/// `Number>>/`
pub const NUMBER_DIVIDE: u16 = 103;
/// `Number>>//`
pub const NUMBER_INTEGER_DIVIDE: u16 = 104;
/// `Number>>\\`
pub const NUMBER_MODULO: u16 = 105;
/// `Number>>quo:`
pub const NUMBER_QUO: u16 = 106;
/// `Number>>rem:`
pub const NUMBER_REM: u16 = 107;
/// `Number>><`
pub const NUMBER_LESS: u16 = 108;
/// `Number>>>`
pub const NUMBER_GREATER: u16 = 109;
/// `Number>><=`
pub const NUMBER_LESS_OR_EQUAL: u16 = 110;
/// `Number>>>=`
pub const NUMBER_GREATER_OR_EQUAL: u16 = 111;
/// `Number>>=`
pub const NUMBER_EQUAL: u16 = 112;
/// `Number>>~=`
pub const NUMBER_NOT_EQUAL: u16 = 113;
/// `Number>>hash`
pub const NUMBER_HASH: u16 = 114;
/// `Number>>negated`
pub const NUMBER_NEGATED: u16 = 115;
/// `Number>>abs`
pub const NUMBER_ABS: u16 = 116;
/// `Number>>asFloat`
pub const NUMBER_AS_FLOAT: u16 = 117;
/// `Number>>truncated`
pub const NUMBER_TRUNCATED: u16 = 118;
/// `Number>>rounded`
pub const NUMBER_ROUNDED: u16 = 119;
/// `Number>>floor`
pub const NUMBER_FLOOR: u16 = 120;
/// `Number>>ceiling`
pub const NUMBER_CEILING: u16 = 121;
/// `Number>>printString`, `Number>>_basicPrintString`
pub const NUMBER_PRINT_STRING: u16 = 122;
/// `Integer>>printString:`
pub const INTEGER_PRINT_STRING_RADIX: u16 = 123;
/// `Number>>gcd:`
pub const NUMBER_GCD: u16 = 124;
/// `Number>>lcm:`
pub const NUMBER_LCM: u16 = 125;
/// `Integer>>bitAnd:`
pub const INTEGER_BIT_AND: u16 = 126;
/// `Integer>>bitOr:`
pub const INTEGER_BIT_OR: u16 = 127;
/// `Integer>>bitXor:`
pub const INTEGER_BIT_XOR: u16 = 128;
/// `Integer>>bitShift:`
pub const INTEGER_BIT_SHIFT: u16 = 129;
/// `Number>>sqrt`
pub const NUMBER_SQRT: u16 = 130;
/// `Number>>raisedTo:`
pub const NUMBER_RAISED_TO: u16 = 131;
/// `Integer>>factorial`
pub const INTEGER_FACTORIAL: u16 = 132;
/// `Number>>asFraction`, `Number>>asExactFraction`
pub const NUMBER_AS_FRACTION: u16 = 133;
/// `Number>>asScaledDecimal:`
pub const NUMBER_AS_SCALED_DECIMAL: u16 = 134;
/// `Number>>numerator`
pub const NUMBER_NUMERATOR: u16 = 135;
/// `Number>>denominator`
pub const NUMBER_DENOMINATOR: u16 = 136;
/// `Number>>ln`
pub const NUMBER_LN: u16 = 137;
/// `Number>>exp`
pub const NUMBER_EXP: u16 = 138;
/// `Number>>sin`
pub const NUMBER_SIN: u16 = 139;
/// `Number>>cos`
pub const NUMBER_COS: u16 = 140;
/// `Number>>tan`
pub const NUMBER_TAN: u16 = 141;
/// `Number>>arcTan`
pub const NUMBER_ARC_TAN: u16 = 142;
/// `Number>>log:`
pub const NUMBER_LOG: u16 = 143;
/// `Number>>isZero`
pub const NUMBER_IS_ZERO: u16 = 144;
/// `Number>>sign`
pub const NUMBER_SIGN: u16 = 145;
/// `Integer>>highBit`
pub const INTEGER_HIGH_BIT: u16 = 146;
/// `Integer>>asCharacter`
pub const INTEGER_AS_CHARACTER: u16 = 147;
/// (no kernel method: `printString` of a number, as 122, for `printOn:`)
pub const NUMBER_PRINT_STRING_HELPER: u16 = 148;
/// `Number>>asInteger`
pub const NUMBER_AS_INTEGER: u16 = 149;
/// `ScaledDecimal>>scale`
pub const SCALED_DECIMAL_SCALE: u16 = 150;
/// `Number>>roundTo:`
pub const NUMBER_ROUND_TO: u16 = 151;
/// `Number>>truncateTo:`
pub const NUMBER_TRUNCATE_TO: u16 = 152;
/// `Number>>fractionPart`
pub const NUMBER_FRACTION_PART: u16 = 153;
/// `Number>>integerPart`
pub const NUMBER_INTEGER_PART: u16 = 154;
/// `BinaryFloat>>isNaN`
pub const NUMBER_IS_NAN: u16 = 155;
/// `BinaryFloat>>isInfinite`
pub const FLOAT_IS_INFINITE: u16 = 156;
/// `Number>>negative`
pub const NUMBER_NEGATIVE: u16 = 157;
/// `Number>>squared`
pub const NUMBER_SQUARED: u16 = 158;
/// `Integer>>even`
pub const INTEGER_EVEN: u16 = 159;

// ----- Character: 160..=169 -----
/// `Character>>value`, `Character>>asInteger`, `Character>>codePoint`, `Character>>asciiValue`
pub const CHAR_VALUE: u16 = 160;
/// `Character class>>value:`, `Character class>>codePoint:`, `Character class>>withValue:`
pub const CHAR_WITH_VALUE: u16 = 161;
/// `Character>>isVowel`
pub const CHAR_IS_VOWEL: u16 = 162;
/// `Character>>isLetter`
pub const CHAR_IS_LETTER: u16 = 163;
/// `Character>>isDigit`
pub const CHAR_IS_DIGIT: u16 = 164;
/// `Character>>isSeparator`
pub const CHAR_IS_SEPARATOR: u16 = 165;
/// `Character>>asUppercase`
pub const CHAR_AS_UPPERCASE: u16 = 166;
/// `Character>>asLowercase`
pub const CHAR_AS_LOWERCASE: u16 = 167;
/// `Character>>isUppercase`
pub const CHAR_IS_UPPERCASE: u16 = 168;
/// `Character>>isLowercase`
pub const CHAR_IS_LOWERCASE: u16 = 169;

// ----- Strings, symbols, byte arrays: 200..=239 -----
/// `CharacterCollection>>,`
pub const STRING_CONCATENATE: u16 = 200;
/// `CharacterCollection>>=`
pub const STRING_EQUAL: u16 = 201;
/// `CharacterCollection>><`
pub const STRING_LESS: u16 = 202;
/// `CharacterCollection>>>`
pub const STRING_GREATER: u16 = 203;
/// `CharacterCollection>><=`
pub const STRING_LESS_OR_EQUAL: u16 = 204;
/// `CharacterCollection>>>=`
pub const STRING_GREATER_OR_EQUAL: u16 = 205;
/// `CharacterCollection>>hash`
pub const STRING_HASH: u16 = 206;
/// `CharacterCollection>>asSymbol`
pub const STRING_AS_SYMBOL: u16 = 207;
/// `CharacterCollection>>asString`
pub const STRING_AS_STRING: u16 = 208;
/// `ArrayedCollection>>copyFrom:to:`, `CharacterCollection>>copyFrom:to:`
pub const STRING_COPY_FROM_TO: u16 = 209;
/// `ArrayedCollection>>indexOf:`, `CharacterCollection>>indexOf:`
pub const STRING_INDEX_OF: u16 = 210;
/// `CharacterCollection>>includesSubstring:`
pub const STRING_INCLUDES_SUBSTRING: u16 = 211;
/// `CharacterCollection>>asUppercase`
pub const STRING_AS_UPPERCASE: u16 = 212;
/// `CharacterCollection>>asLowercase`
pub const STRING_AS_LOWERCASE: u16 = 213;
/// `CharacterCollection>>printString`
pub const STRING_PRINT_STRING: u16 = 214;
/// `CharacterCollection>>encodeAsUTF8`
pub const STRING_ENCODE_AS_UTF8: u16 = 215;
/// `ByteArray>>decodeFromUTF8`, `CharacterCollection>>decodeFromUTF8`
pub const STRING_DECODE_FROM_UTF8: u16 = 216;
/// `CharacterCollection>>evaluate`
pub const STRING_EVALUATE: u16 = 217;
/// `CharacterCollection>>displayString`
pub const STRING_DISPLAY_STRING: u16 = 218;
/// `CharacterCollection>>asNumber`
pub const STRING_AS_NUMBER: u16 = 219;
/// `CharacterCollection>>asInteger`
pub const STRING_AS_INTEGER: u16 = 220;
/// `CharacterCollection>>_findString:startingAt:ignoreCase:`
pub const STRING_FIND_STRING: u16 = 221;
/// `ArrayedCollection>>replaceFrom:to:with:startingAt:`,
/// `CharacterCollection>>replaceFrom:to:with:startingAt:`
pub const STRING_REPLACE_FROM_TO: u16 = 222;
/// `Symbol>>numArgs`
pub const SYMBOL_NUM_ARGS: u16 = 223;
/// `CharacterCollection>>size`
pub const STRING_SIZE: u16 = 224;
/// `ArrayedCollection>>reverse`, `ArrayedCollection>>reversed`, `CharacterCollection>>reverse`
pub const STRING_REVERSE: u16 = 225;
/// `CharacterCollection>>trimSeparators`
pub const STRING_TRIM_SEPARATORS: u16 = 226;
/// `CharacterCollection>>subStrings`, `CharacterCollection>>substrings`
pub const STRING_SUBSTRINGS: u16 = 227;
/// `CharacterCollection>>substrings:`, `CharacterCollection>>subStrings:`
pub const STRING_SUBSTRINGS_SEPARATED_BY: u16 = 228;
/// `CharacterCollection>>includesString:`
pub const STRING_INCLUDES_STRING: u16 = 229;
/// `CharacterCollection>>asByteArray`
pub const STRING_AS_BYTE_ARRAY: u16 = 230;
/// `ArrayedCollection>>occurrencesOf:`, `CharacterCollection>>occurrencesOf:`
pub const STRING_OCCURRENCES_OF: u16 = 231;
/// `CharacterCollection>>isSymbol`
pub const STRING_IS_SYMBOL: u16 = 232;
/// `CharacterCollection>>asUnicodeString`
pub const STRING_AS_UNICODE: u16 = 233;
/// `CharacterCollection class>>new:withAll:`, `MultiByteString class>>new:withAll:`, `String
/// class>>new:withAll:`
pub const STRING_NEW_WITH_ALL: u16 = 234;
/// `CharacterCollection>>sameAs:`
pub const STRING_SAME_AS: u16 = 235;
/// `CharacterCollection>>startsWith:`
pub const STRING_STARTS_WITH: u16 = 236;
/// `CharacterCollection>>endsWith:`
pub const STRING_ENDS_WITH: u16 = 237;
/// `CharacterCollection>>matchPattern:`
pub const STRING_MATCH_PATTERN: u16 = 238;
/// `CharacterCollection>>keywords`, `Symbol>>keywords`
pub const STRING_KEYWORDS: u16 = 239;

// ----- Hashed collections: 240..=241 -----
/// `Set>>_indexOf:`
pub const SET_INDEX_OF: u16 = 240;
/// `Dictionary>>_indexOf:`
pub const DICTIONARY_INDEX_OF: u16 = 241;

// ----- Blocks: 250..=269 -----
/// `ExecBlock>>value`, `ExecBlock>>value:`, `ExecBlock>>value:value:`,
/// `ExecBlock>>value:value:value:`, `ExecBlock>>value:value:value:value:`
pub const BLOCK_VALUE: u16 = 250;
/// `ExecBlock>>valueWithArguments:`
pub const BLOCK_VALUE_WITH_ARGUMENTS: u16 = 251;
/// `ExecBlock>>numArgs`
pub const BLOCK_NUM_ARGS: u16 = 252;
/// `ExecBlock>>on:do:`
pub const BLOCK_ON_DO: u16 = 253;
/// `ExecBlock>>ensure:`
pub const BLOCK_ENSURE: u16 = 254;
/// `ExecBlock>>ifCurtailed:`
pub const BLOCK_IF_CURTAILED: u16 = 255;
/// `ExecBlock>>whileTrue`
pub const BLOCK_WHILE_TRUE: u16 = 256;
/// `ExecBlock>>whileFalse`
pub const BLOCK_WHILE_FALSE: u16 = 257;
/// `ExecBlock>>whileTrue:`
pub const BLOCK_WHILE_TRUE_DO: u16 = 258;
/// `ExecBlock>>whileFalse:`
pub const BLOCK_WHILE_FALSE_DO: u16 = 259;
/// `ExecBlock>>repeat`
pub const BLOCK_REPEAT: u16 = 260;

// ----- Exceptions: 270..=299 -----
/// `AbstractException>>signal`
pub const EXCEPTION_SIGNAL: u16 = 270;
/// `AbstractException>>return:`
pub const EXCEPTION_RETURN: u16 = 272;
/// `AbstractException>>retry`
pub const EXCEPTION_RETRY: u16 = 273;
/// `AbstractException>>retryUsing:`
pub const EXCEPTION_RETRY_USING: u16 = 274;
/// `AbstractException>>pass`
pub const EXCEPTION_PASS: u16 = 275;
/// `AbstractException>>outer`
pub const EXCEPTION_OUTER: u16 = 276;
/// `AbstractException>>resume:`
pub const EXCEPTION_RESUME: u16 = 277;
/// `AbstractException>>resignalAs:`
pub const EXCEPTION_RESIGNAL_AS: u16 = 278;
/// `AbstractException>>isNested`
pub const EXCEPTION_IS_NESTED: u16 = 279;
/// `AbstractException>>_unhandled`
pub const EXCEPTION_UNHANDLED: u16 = 280;
/// `AbstractException>>_description`
pub const EXCEPTION_DESCRIPTION: u16 = 285;
/// `AbstractException>>stackReport`
pub const EXCEPTION_STACK_REPORT: u16 = 286;
/// `GsProcess class>>stackReportToLevel:`
pub const PROCESS_STACK_REPORT_TO_LEVEL: u16 = 287;

// ----- System, Transcript, SymbolDictionary, misc: 300..=349 -----
/// `TranscriptStream>>nextPutAll:`
pub const TRANSCRIPT_SHOW: u16 = 300;
/// `TranscriptStream>>cr`
pub const TRANSCRIPT_CR: u16 = 301;
/// `TranscriptStream>>tab`
pub const TRANSCRIPT_TAB: u16 = 302;
/// `TranscriptStream>>space`
pub const TRANSCRIPT_SPACE: u16 = 303;
/// `TranscriptStream>>contents`
pub const TRANSCRIPT_CONTENTS: u16 = 304;
/// `System class>>myUserProfile`
pub const SYSTEM_MY_USER_PROFILE: u16 = 310;
/// `System class>>stoneName`
pub const SYSTEM_STONE_NAME: u16 = 311;
/// `System class>>session`
pub const SYSTEM_SESSION: u16 = 312;
/// `System class>>commitTransaction`
pub const SYSTEM_COMMIT_TRANSACTION: u16 = 313;
/// `System class>>abortTransaction`
pub const SYSTEM_ABORT_TRANSACTION: u16 = 314;
/// `System class>>inTransaction`
pub const SYSTEM_IN_TRANSACTION: u16 = 315;
/// `System class>>needsCommit`
pub const SYSTEM_NEEDS_COMMIT: u16 = 316;
/// `System class>>millisecondClockValue`, `Time class>>millisecondClockValue`
pub const SYSTEM_MILLISECOND_CLOCK: u16 = 317;
/// `System class>>_gcNow`
pub const SYSTEM_GC_NOW: u16 = 318;
/// `SessionTemps class>>current`
pub const SESSION_TEMPS_CURRENT: u16 = 319;
/// `SymbolDictionary>>at:`
pub const SYMDICT_AT: u16 = 320;
/// `SymbolDictionary>>at:put:`
pub const SYMDICT_AT_PUT: u16 = 321;
/// `SymbolDictionary>>associationAt:`, `SymbolDictionary>>_associationAtOrNil:`
pub const SYMDICT_ASSOCIATION_AT: u16 = 322;
/// `SymbolDictionary>>removeKey:`, `SymbolDictionary>>_removeKeyPresent:`
pub const SYMDICT_REMOVE_KEY: u16 = 323;
/// `SymbolDictionary>>includesKey:`
pub const SYMDICT_INCLUDES_KEY: u16 = 324;
/// `SymbolDictionary>>size`
pub const SYMDICT_SIZE: u16 = 326;
/// `SymbolDictionary>>associations`, `SymbolDictionary>>_associationsArray`
pub const SYMDICT_ASSOCIATIONS: u16 = 327;
/// `SymbolDictionary>>values`
pub const SYMDICT_VALUES: u16 = 328;
/// `SymbolDictionary class>>new`
pub const SYMDICT_NEW: u16 = 329;
/// `SymbolDictionary>>keyAtValue:`
pub const SYMDICT_KEY_AT_VALUE: u16 = 330;
/// `SymbolDictionary>>add:`
pub const SYMDICT_ADD: u16 = 331;
/// `Object>>_halt`
pub const OBJECT_HALT: u16 = 340;
/// `Object>>_sleep:`
pub const OBJECT_SLEEP: u16 = 341;

// ----- ClassOrganizer's searches: 360..=369 -----
/// `ClassOrganizer>>_classesInSymbolList`
pub const FINDER_CLASSES: u16 = 360;
/// `ClassOrganizer>>_implementorsOf:in:`
pub const FINDER_IMPLEMENTORS: u16 = 361;
/// `ClassOrganizer>>_sendersOf:keyword:in:`
pub const FINDER_SENDERS: u16 = 362;
/// `ClassOrganizer>>_referencesToObject:in:`
pub const FINDER_REFERENCES: u16 = 363;
/// `ClassOrganizer>>_substringSearch:ignoreCase:in:`
pub const FINDER_SUBSTRING_SEARCH: u16 = 364;

// ----- The repository's transactions and users: 380..=399 -----
/// `System class>>continueTransaction`
pub const SYSTEM_CONTINUE_TRANSACTION: u16 = 380;
/// `System class>>transactionConflicts`
pub const SYSTEM_TRANSACTION_CONFLICTS: u16 = 381;
/// `System class>>transactionMode`
pub const SYSTEM_TRANSACTION_MODE: u16 = 382;
/// `UserProfileSet>>addNewUserWithId:password:`
pub const USERS_ADD_USER: u16 = 383;
/// `UserProfileSet>>addNewUserWithId:password:commitDisabled:`
pub const USERS_ADD_USER_COMMIT_DISABLED: u16 = 384;
/// `UserProfileSet>>userIds`
pub const USERS_USER_IDS: u16 = 385;
/// `UserProfileSet>>userWithId:`
pub const USERS_USER_WITH_ID: u16 = 386;
/// `UserProfile>>_enableJwtFor:key:userIds:issuers:audiences:`
pub const USER_ENABLE_JWT: u16 = 387;
/// `System class>>_addJwtKeyPem:withId:`
pub const SYSTEM_ADD_JWT_KEY: u16 = 388;
/// `System class>>removeJwtKeyWithId:`
pub const SYSTEM_REMOVE_JWT_KEY: u16 = 389;
/// `System class>>_jwtPublicKeyPems`
pub const SYSTEM_JWT_KEYS: u16 = 390;
/// `GsTlsPublicKey class>>_kindOfPem:`
pub const TLS_PUBLIC_KEY_KIND: u16 = 391;
/// `GsTlsPublicKey class>>_pemOfFile:`
pub const TLS_PUBLIC_KEY_FILE: u16 = 392;

// ----- Collection fast paths: 400..=429 -----
/// `OrderedCollection>>add:`, `OrderedCollection>>addLast:`
pub const OC_ADD: u16 = 400;
/// `OrderedCollection>>removeFirst`
pub const OC_REMOVE_FIRST: u16 = 401;
/// `OrderedCollection>>removeLast`
pub const OC_REMOVE_LAST: u16 = 402;
/// `OrderedCollection>>at:`
pub const OC_AT: u16 = 403;
/// `OrderedCollection>>at:put:`
pub const OC_AT_PUT: u16 = 404;
/// `OrderedCollection>>do:`
pub const OC_DO: u16 = 405;
/// `SequenceableCollection>>do:`
pub const SEQ_DO: u16 = 406;
/// `SequenceableCollection>>doWithIndex:`, `SequenceableCollection>>withIndexDo:`
pub const SEQ_DO_WITH_INDEX: u16 = 407;
/// `WriteStream>>_grow`
pub const STREAM_GROW: u16 = 408;
/// `OrderedCollection>>_growAtEnd`
pub const OC_GROW_AT_END: u16 = 409;
/// `Dictionary>>at:ifAbsent:`
pub const DICTIONARY_AT_IF_ABSENT: u16 = 410;
/// `Dictionary>>at:put:`
pub const DICTIONARY_AT_PUT: u16 = 411;
/// `Set>>add:`
pub const SET_ADD: u16 = 412;
/// `Set>>includes:`
pub const SET_INCLUDES: u16 = 413;
/// `WriteStream>>nextPut:`
pub const STREAM_NEXT_PUT: u16 = 414;
/// `WriteStream>>nextPutAll:`
pub const STREAM_NEXT_PUT_ALL: u16 = 415;
/// `OrderedCollection>>size`
pub const OC_SIZE: u16 = 416;
/// `ArrayedCollection class>>with:`, `ArrayedCollection class>>with:with:`, `ArrayedCollection
/// class>>with:with:with:`, `ArrayedCollection class>>with:with:with:with:`, `ArrayedCollection
/// class>>with:with:with:with:with:`, `ArrayedCollection class>>with:with:with:with:with:with:`,
/// `Collection class>>with:`, `Collection class>>with:with:`, `Collection class>>with:with:with:`,
/// `Collection class>>with:with:with:with:`, `Collection class>>with:with:with:with:with:`,
/// `Collection class>>with:with:with:with:with:with:`
pub const COLLECTION_WITH: u16 = 417;
/// `Number>>max:`
pub const NUMBER_MAX: u16 = 418;
/// `Number>>min:`
pub const NUMBER_MIN: u16 = 419;
/// `OrderedCollection>>isEmpty`
pub const OC_IS_EMPTY: u16 = 420;
/// `OrderedCollection>>notEmpty`
pub const OC_NOT_EMPTY: u16 = 421;
/// `Set>>_grow`
pub const SET_GROW: u16 = 422;
/// `OrderedCollection>>_initialize:`
pub const OC_INITIALIZE: u16 = 423;
/// `Dictionary>>_rehashInto:`
pub const DICTIONARY_REHASH_INTO: u16 = 424;
/// `Collection>>detect:ifNone:`
pub const COLLECTION_DETECT_IF_NONE: u16 = 425;
/// `ArrayedCollection class>>new:withAll:`
pub const ARRAY_NEW_WITH_ALL: u16 = 426;
/// `SequenceableCollection>>first`
pub const SEQ_FIRST: u16 = 427;
/// `SequenceableCollection>>last`
pub const SEQ_LAST: u16 = 428;
/// `OrderedCollection class>>new`, `OrderedCollection class>>new:`
pub const OC_NEW: u16 = 429;

/// The build's check, tested here on broken tables.
#[cfg(test)]
#[path = "../../build/primitives.rs"]
mod check;

#[cfg(test)]
mod tests {
    use super::check::check_numbers;
    use std::collections::BTreeMap;

    #[test]
    fn the_table_and_the_kernel_must_agree() {
        let users: BTreeMap<usize, Vec<String>> = [
            (1, vec!["Object>>==".to_string()]),
            (22, vec!["Object>>at:".into(), "Behavior class>>at:".into()]),
        ]
        .into_iter()
        .collect();
        let good = "/// `Object>>==`\npub const A: u16 = 1;\n/// `Object>>at:`, `Behavior\n/// class>>at:`\npub const B: u16 = 22;\n/// (no kernel method: the engine's own)\npub const C: u16 = 148;\n";
        assert_eq!(check_numbers(good, &users), Ok(vec![1, 22, 148]));
        // (table, a problem the check names)
        let table = [
            ("/// `Object>>==`\npub const A: u16 = 1;\n", "Object>>at: uses <primitive: 22>, which has no constant"),
            ("/// `Object>>==`\npub const A: u16 = 1;\n/// `Object>>==`\npub const B: u16 = 22;\n", "B (22) names Object>>==, which does not use <primitive: 22>"),
            ("/// `Object>>==`\npub const A: u16 = 1;\n/// `Object>>at:`\npub const B: u16 = 22;\n/// the engine's\npub const C: u16 = 30;\n", "C (30): no kernel method uses it"),
            ("/// `Object>>==`\npub const A: u16 = 1;\n/// `Object>>at:`\npub const B: u16 = 1;\n", "B and A are both 1"),
            ("/// nothing\npub const A: u16 = 1;\n/// `Object>>at:`\npub const B: u16 = 22;\n", "A (1): name a method that uses it, e.g. `Object>>==`"),
            ("/// `Object>>==`\npub const A: u16 = 1;\n/// `Object>>at:`\npub const B: u16 = 22;\npub const C: u16 = 600;\n", "C = 600: primitive numbers stop at 499"),
        ];
        for (text, expected) in table {
            let problems = check_numbers(text, &users).expect_err(text);
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{text}: {problems:?}"
            );
        }
    }

    #[test]
    fn this_builds_table_names_every_number_the_compiler_accepts() {
        let named = include_str!("primitives.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("pub const "))
            .filter_map(|l| l.split_once(": u16 = "))
            .filter_map(|(_, n)| n.trim_end_matches(';').parse::<u16>().ok())
            .collect::<Vec<_>>();
        assert_eq!(named.len(), 290);
        for n in 0..600u16 {
            assert_eq!(
                crate::interp::primitive::is_known_primitive(n),
                named.contains(&n),
                "{n}"
            );
        }
    }
}
