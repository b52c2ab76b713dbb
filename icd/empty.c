/* libkiln.so is built from kiln_core as a whole archive; this file only gives the target a source. */
