/**
 * zod's own English sentences (the prefixes of its `en` locale, zod 4: "Invalid input: expected number, received
 * NaN", "Too small: expected number to be >=1", …), which must never reach a user of barometer.
 */
export const ZOD_DEFAULT_WORDING =
  /Invalid input|Invalid option|Too (big|small):|expected \w+, received|Unrecognized key|Invalid discriminator|Invalid (string|number):|Invalid (key|value) in/;
