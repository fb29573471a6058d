/** barometer's version, as package.json states it (a test checks that the two agree). */
export const BAROMETER_VERSION = '0.1.0';
