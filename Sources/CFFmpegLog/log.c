#include "cffmpeg_log.h"
