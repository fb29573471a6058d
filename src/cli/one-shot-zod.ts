import * as z from 'zod';

/**
 * For a process that parses each schema once (`barometer statusline`): zod compiles a fast parser for an object
 * schema on its first parse (`new Function`), which pays for itself over many parses and costs a one-shot process
 * more than it saves (docs/decisions/080). zod reads the setting when it builds an object schema, so the entry
 * imports this module before anything that builds one.
 */
z.config({ jitless: true });
