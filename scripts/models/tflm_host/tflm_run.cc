// Runs a .tflite model in TensorFlow Lite Micro's MicroInterpreter, built for the host
// from TFLM's own sources by build.sh, and prints what the judge compares.
//
//   tflm_run MODEL.tflite ARENA_BYTES NAME=IN0.bin[,IN1.bin ...] [NAME=... ...]
//
// The interpreter is built over a RecordingMicroAllocator, so that the arena's head
// (non-persistent: the planned tensors) and tail (persistent) are known, with one resolver
// for every committed model whose operators TFLM has on a host: person_detection_test.cc's
// five operators from the same registrations (AVERAGE_POOL_2D, CONV_2D, DEPTHWISE_CONV_2D and
// SOFTMAX by their _INT8 registrations, RESHAPE), and FULLY_CONNECTED, ADD,
// UNIDIRECTIONAL_SEQUENCE_LSTM, LOGISTIC, SVDF and QUANTIZE by their default registrations,
// as TFLM's examples and keyword benchmark register them. (audio_preprocessor's signal
// library operators are not built: they need kissfft.)
// Each NAME=... is one input set: one file per model input, in the model's input order,
// each holding exactly that input's bytes (for person detection the int8 image, as the
// test copies it with `memcpy(input->data.int8, g_person_image_data, input->bytes)`); the
// sets are run in the order given, on one interpreter, as the test runs its two images.
//
// Prints, one fact a line, on stdout:
//   model PATH bytes N arena_given N
//   input NAME output J TYPE [DIMS] hex HEX
//   input NAME scores person P no_person Q     (a 2-class int8 output: model_settings.h)
//   arena_used_bytes N                          (MicroInterpreter::arena_used_bytes())
//   head N tail N total N                       (the RecordingMicroAllocator's arena)
// and TFLM's own RecordingMicroAllocator::PrintAllocations() on stderr.
//
// Exit status: 0 when every input set ran; 2 on a usage or file error (a set with another
// number of files than the model has inputs, a file of another size than its input); 3 when
// TFLM refuses the model (schema version, an operator not registered, AllocateTensors); 4
// when an Invoke fails.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tensorflow/lite/micro/examples/person_detection/model_settings.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/recording_micro_allocator.h"
#include "tensorflow/lite/schema/schema_generated.h"

namespace {

bool ReadFile(const char* path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) {
    out->insert(out->end(), chunk, chunk + n);
  }
  bool ok = std::ferror(f) == 0;
  std::fclose(f);
  return ok;
}

// 16-byte aligned storage of `size` bytes (the model and the arena: TFLM reads the
// flatbuffer in place and aligns the arena to MicroArenaBufferAlignment(), 16).
uint8_t* Aligned(size_t size) {
  size_t rounded = (size + 15) / 16 * 16;
  return static_cast<uint8_t*>(std::aligned_alloc(16, rounded == 0 ? 16 : rounded));
}

const char* TypeName(TfLiteType t) {
  switch (t) {
    case kTfLiteInt8:
      return "int8";
    case kTfLiteUInt8:
      return "uint8";
    case kTfLiteInt16:
      return "int16";
    case kTfLiteInt32:
      return "int32";
    case kTfLiteFloat32:
      return "float32";
    default:
      return "other";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s MODEL.tflite ARENA_BYTES NAME=IN0.bin[,IN1.bin ...] [NAME=...]\n",
                 argv[0]);
    return 2;
  }
  const char* model_path = argv[1];
  char* end = nullptr;
  unsigned long long arena_arg = std::strtoull(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || arena_arg == 0 || arena_arg > (1ull << 30)) {
    std::fprintf(stderr, "ARENA_BYTES must be a number of bytes in 1..=2^30, not %s\n", argv[2]);
    return 2;
  }
  const size_t arena_size = static_cast<size_t>(arena_arg);

  std::vector<uint8_t> file;
  if (!ReadFile(model_path, &file) || file.empty()) {
    std::fprintf(stderr, "%s: cannot read the model\n", model_path);
    return 2;
  }
  uint8_t* model_data = Aligned(file.size());
  uint8_t* arena = Aligned(arena_size);
  if (model_data == nullptr || arena == nullptr) {
    std::fprintf(stderr, "out of memory\n");
    return 2;
  }
  std::memcpy(model_data, file.data(), file.size());
  std::printf("model %s bytes %zu arena_given %zu\n", model_path, file.size(), arena_size);

  const tflite::Model* model = tflite::GetModel(model_data);
  if (model->version() != TFLITE_SCHEMA_VERSION) {
    std::fprintf(stderr, "%s: schema version %u, TFLM supports %d\n", model_path,
                 static_cast<unsigned>(model->version()), TFLITE_SCHEMA_VERSION);
    return 3;
  }

  // person_detection_test.cc's resolver, registration for registration, and the two
  // operators the other committed models use: FULLY_CONNECTED (hello_world_int8,
  // micro_speech_quantized: AddFullyConnected() as their examples add it) and ADD
  // (simple_add_model).
  // The stateful models' operators: UNIDIRECTIONAL_SEQUENCE_LSTM and LOGISTIC
  // (dtln_noise_suppression, micro_speech_lstm), SVDF and QUANTIZE (keyword_scrambled, as
  // keyword_benchmark.cc adds them), each by its default registration.
  tflite::MicroMutableOpResolver<11> resolver;
  resolver.AddAveragePool2D(tflite::Register_AVERAGE_POOL_2D_INT8());
  resolver.AddConv2D(tflite::Register_CONV_2D_INT8());
  resolver.AddDepthwiseConv2D(tflite::Register_DEPTHWISE_CONV_2D_INT8());
  resolver.AddReshape();
  resolver.AddSoftmax(tflite::Register_SOFTMAX_INT8());
  resolver.AddFullyConnected();
  resolver.AddAdd();
  resolver.AddUnidirectionalSequenceLSTM();
  resolver.AddLogistic();
  resolver.AddSvdf();
  resolver.AddQuantize();

  tflite::RecordingMicroAllocator* allocator =
      tflite::RecordingMicroAllocator::Create(arena, arena_size);
  if (allocator == nullptr) {
    std::fprintf(stderr, "RecordingMicroAllocator::Create failed (arena too small)\n");
    return 3;
  }
  tflite::MicroInterpreter interpreter(model, resolver, allocator);
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    std::fprintf(stderr, "%s: AllocateTensors failed\n", model_path);
    return 3;
  }
  const size_t n_inputs = interpreter.inputs_size();
  if (n_inputs == 0) {
    std::fprintf(stderr, "%s: no inputs\n", model_path);
    return 3;
  }

  for (int a = 3; a < argc; ++a) {
    const char* eq = std::strchr(argv[a], '=');
    if (eq == nullptr || eq == argv[a]) {
      std::fprintf(stderr, "give NAME=IN0.bin[,IN1.bin ...], not %s\n", argv[a]);
      return 2;
    }
    std::string name(argv[a], eq - argv[a]);
    std::vector<std::string> paths;
    for (const char* p = eq + 1;;) {
      const char* comma = std::strchr(p, ',');
      paths.emplace_back(p, comma == nullptr ? std::strlen(p) : static_cast<size_t>(comma - p));
      if (comma == nullptr) break;
      p = comma + 1;
    }
    if (paths.size() != n_inputs) {
      std::fprintf(stderr, "%s: %zu input files, the model has %zu inputs\n", name.c_str(),
                   paths.size(), n_inputs);
      return 2;
    }
    for (size_t i = 0; i < n_inputs; ++i) {
      TfLiteTensor* input = interpreter.input(i);
      std::vector<uint8_t> bytes;
      if (paths[i].empty() || !ReadFile(paths[i].c_str(), &bytes)) {
        std::fprintf(stderr, "%s: cannot read\n", paths[i].c_str());
        return 2;
      }
      if (bytes.size() != input->bytes) {
        std::fprintf(stderr, "%s: %zu bytes, input %zu takes %zu\n", paths[i].c_str(),
                     bytes.size(), i, input->bytes);
        return 2;
      }
      std::memcpy(input->data.raw, bytes.data(), input->bytes);
    }
    if (interpreter.Invoke() != kTfLiteOk) {
      std::fprintf(stderr, "%s: Invoke failed on %s\n", model_path, name.c_str());
      return 4;
    }
    for (size_t j = 0; j < interpreter.outputs_size(); ++j) {
      TfLiteTensor* out = interpreter.output(j);
      std::printf("input %s output %zu %s [", name.c_str(), j, TypeName(out->type));
      for (int d = 0; d < out->dims->size; ++d) {
        std::printf(d == 0 ? "%d" : ",%d", out->dims->data[d]);
      }
      std::printf("] hex ");
      const uint8_t* raw = reinterpret_cast<const uint8_t*>(out->data.raw);
      for (size_t b = 0; b < out->bytes; ++b) std::printf("%02x", raw[b]);
      std::printf("\n");
      if (j == 0 && out->type == kTfLiteInt8 && out->bytes == static_cast<size_t>(kCategoryCount)) {
        std::printf("input %s scores person %d no_person %d\n", name.c_str(),
                    out->data.int8[kPersonIndex], out->data.int8[kNotAPersonIndex]);
      }
    }
  }

  const tflite::RecordingSingleArenaBufferAllocator* recorded =
      allocator->GetSimpleMemoryAllocator();
  std::printf("arena_used_bytes %zu\n", interpreter.arena_used_bytes());
  std::printf("head %zu tail %zu total %zu\n", recorded->GetNonPersistentUsedBytes(),
              recorded->GetPersistentUsedBytes(), recorded->GetUsedBytes());
  std::fflush(stdout);
  allocator->PrintAllocations();
  return 0;
}
