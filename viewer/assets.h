/*
 * assets.h - the files of viewer/assets, compiled into the binary (assets.c is generated at
 * build time by embed_assets.cmake from the list in viewer/CMakeLists.txt, in that order).
 * Each is NUL-terminated; len excludes the NUL. The build fails if a CSS or JavaScript asset
 * contains "</" followed by "script" or "style", so none can end its element early.
 */
#ifndef CT_VIEWER_ASSETS_H
#define CT_VIEWER_ASSETS_H

#include <stddef.h>

struct ct_asset {
  const char *name; /* file name, e.g. "viewer.js" */
  const char *data;
  size_t len;
};

extern const struct ct_asset ct_viewer_assets[];
extern const size_t ct_viewer_nassets;

#endif
