# Build types behind the presets: Dev (-O1 -g), Asan (address + undefined), Release (-O2 -g).
set(CMAKE_CXX_FLAGS_DEV "-O1 -g" CACHE STRING "" FORCE)
set(CMAKE_CXX_FLAGS_ASAN "-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" CACHE STRING "" FORCE)
set(CMAKE_EXE_LINKER_FLAGS_ASAN "-fsanitize=address,undefined" CACHE STRING "" FORCE)
# Frame pointers keep production profiles (perf) readable for about 1 % of speed.
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -g -DNDEBUG -fno-omit-frame-pointer" CACHE STRING "" FORCE)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Dev CACHE STRING "" FORCE)
endif()

# lld links in a fraction of ld.bfd's time: it matters for the many test binaries.
add_link_options(-fuse-ld=lld)
add_compile_options(-Wall -Wextra -Wno-missing-field-initializers)
