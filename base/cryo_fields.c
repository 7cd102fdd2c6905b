/* The table of coupling fields, expanded from CRYO_COUPLING_FIELD_TABLE (cryo_fields.h). */
#include "cryo_fields.h"

const cryo_field_info cryo_exchange_fields[CRYO_NFIELD] = {
#define CRYO_FIELD_ROW_(id, name, units, std, longname, dir, model)                                \
  [CRYO_F_##id] = {name, units, std, longname, CRYO_FIELD_##dir, CRYO_AT_CELL, CRYO_MODEL_##model},
    CRYO_COUPLING_FIELD_TABLE(CRYO_FIELD_ROW_)
#undef CRYO_FIELD_ROW_
};
