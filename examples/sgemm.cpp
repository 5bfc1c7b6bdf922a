// sgemm.cpp - libgemmladder from C++: RAII owners for the handle and for
// device memory, failures turned into exceptions carrying the library's
// message, and the general call (transposes, alpha, beta) run with one rung
// and with cuBLAS, whose results are compared.
//
//   build/examples/sgemm_cpp [VARIANT [M N K]]     (default warptile 1000 700 300)
//
// Computes C = alpha * A^T * B + beta * C with A stored K x M, all row-major.
// Exits 0 when the rung agrees with cuBLAS to 1e-5 (relative, Frobenius),
// 1 on any failure, 77 where there is no CUDA device.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gemmladder.h> // the C header, used unchanged

namespace gl {

// A failed library call: its status and the library's message.
struct error : std::runtime_error {
    gl_status_t status;
    error(gl_status_t s, const std::string &what) : std::runtime_error(what), status(s) {}
};

// Calls without a handle (gl_handle_create) name themselves in their
// message, so they pass no `call`.
inline void check(gl_status_t status, gl_handle_t handle, const char *call = nullptr)
{
    if (status != GL_STATUS_SUCCESS)
        throw error(status, (call ? std::string(call) + ": " : std::string()) +
                                gl_status_string(status) + ": " + gl_last_error(handle));
}

inline void check_cuda(cudaError_t err, const char *call)
{
    if (err != cudaSuccess)
        throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(err));
}

// Owns a gl_handle_t: created on the current CUDA device, destroyed once.
// Movable, not copyable (a handle is used by one thread at a time).
class handle {
public:
    handle() { check(gl_handle_create(&h_), nullptr); }
    ~handle() { gl_handle_destroy(h_); }
    handle(handle &&other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
    handle &operator=(handle &&other) noexcept
    {
        if (this != &other) {
            gl_handle_destroy(h_);
            h_ = std::exchange(other.h_, nullptr);
        }
        return *this;
    }
    handle(const handle &) = delete;
    handle &operator=(const handle &) = delete;

    gl_handle_t get() const noexcept { return h_; }

    // C = alpha * op(A) * op(B) + beta * C, row-major (gl_sgemm_ex).
    void gemm(gl_variant_t variant, gl_transpose_t trans_a, gl_transpose_t trans_b, int64_t M,
              int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *B,
              int64_t ldb, float beta, float *C, int64_t ldc)
    {
        check(gl_sgemm_ex(h_, variant, GL_ROW_MAJOR, trans_a, trans_b, M, N, K, alpha, A, lda, B,
                          ldb, beta, C, ldc),
              h_, "gl_sgemm_ex");
    }

private:
    gl_handle_t h_ = nullptr;
};

// n floats of device memory, freed when it goes out of scope.
class device_buffer {
public:
    explicit device_buffer(size_t n) : n_(n)
    {
        void *p = nullptr;
        check_cuda(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
        p_.reset(static_cast<float *>(p));
    }
    float *get() const noexcept { return p_.get(); }

    void upload(const std::vector<float> &host)
    {
        check_cuda(cudaMemcpy(get(), host.data(), n_ * sizeof(float), cudaMemcpyHostToDevice),
                   "cudaMemcpy to device");
    }
    std::vector<float> download() const // waits for work queued before it
    {
        std::vector<float> host(n_);
        check_cuda(cudaMemcpy(host.data(), get(), n_ * sizeof(float), cudaMemcpyDeviceToHost),
                   "cudaMemcpy to host");
        return host;
    }

private:
    struct cuda_free {
        void operator()(float *p) const noexcept { (void)cudaFree(p); } // no throwing from here
    };
    size_t n_;
    std::unique_ptr<float, cuda_free> p_;
};

} // namespace gl

static std::vector<float> uniform(size_t n, std::mt19937 &rng)
{
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float &x : v)
        x = dist(rng);
    return v;
}

int main(int argc, char **argv)
{
    gl_variant_t variant = GL_VARIANT_WARPTILE;
    int64_t M = 1000, N = 700, K = 300;
    if ((argc > 1 && gl_variant_from_name(argv[1], &variant) != GL_STATUS_SUCCESS) ||
        (argc > 2 && (argc != 5 || (M = std::atoll(argv[2])) < 1 || (N = std::atoll(argv[3])) < 1 ||
                      (K = std::atoll(argv[4])) < 1))) {
        std::fprintf(stderr, "usage: %s [VARIANT [M N K]]   (VARIANT: cublas, naive, ..., warptile)\n",
                     argv[0]);
        return 2;
    }
    try {
        gl::handle h;
        std::mt19937 rng(1);
        const float alpha = 1.5f, beta = -0.5f;
        const auto a_host = uniform(K * M, rng), b_host = uniform(K * N, rng), c_host = uniform(M * N, rng);

        gl::device_buffer A(K * M), B(K * N), C(M * N);
        A.upload(a_host);
        B.upload(b_host);

        // The same product twice, C starting from the same values each time:
        // A is stored K x M (lda = M) and used transposed.
        std::vector<float> results[2];
        const gl_variant_t runs[2] = {GL_VARIANT_CUBLAS, variant};
        for (int i = 0; i < 2; ++i) {
            C.upload(c_host);
            h.gemm(runs[i], GL_OP_T, GL_OP_N, M, N, K, alpha, A.get(), M, B.get(), N, beta, C.get(), N);
            results[i] = C.download();
        }

        double diff = 0, norm = 0;
        for (size_t i = 0; i < results[0].size(); ++i) {
            const double d = (double)results[1][i] - results[0][i];
            diff += d * d;
            norm += (double)results[0][i] * results[0][i];
        }
        const double relative = std::sqrt(diff / norm);
        std::printf("C = %.1f * A^T * B %+.1f * C, %lld x %lld x %lld, gemmladder %s\n", alpha, beta,
                    (long long)M, (long long)N, (long long)K, gl_version_string());
        std::printf("  %-13s ||C - C_cublas|| / ||C_cublas|| = %.2e\n", gl_variant_name(variant),
                    relative);
        return relative <= 1e-5 ? 0 : 1;
    } catch (const gl::error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return e.status == GL_STATUS_NO_DEVICE ? 77 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
